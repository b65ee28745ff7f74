// A WHERE clause built from conditions with bound parameters: values never enter the SQL text.

export class SqlWhere {
  private readonly conditions: string[] = [];
  readonly params: Record<string, unknown> = {};
  private next = 0;

  /** Binds a value and returns its placeholder, e.g. {p0:String}. */
  bind(value: unknown, type: string): string {
    const name = `p${this.next++}`;
    this.params[name] = value;
    return `{${name}:${type}}`;
  }

  add(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  get sql(): string {
    return this.conditions.length === 0 ? '' : `WHERE ${this.conditions.join(' AND ')}`;
  }
}
