// A WHERE clause built from fixed SQL fragments and bound parameters: values never enter the SQL text.

export class SqlFilters {
  private readonly parts: string[] = [];
  readonly params: Record<string, unknown>;

  constructor(params: Record<string, unknown> = {}) {
    this.params = { ...params };
  }

  /** Adds `fragment` (which refers to `{name:Type}` placeholders) with the values it binds. */
  add(fragment: string, params: Record<string, unknown> = {}): this {
    this.parts.push(fragment);
    Object.assign(this.params, params);
    return this;
  }

  /** `WHERE a AND b ...`, or '' when there is no condition. */
  get where(): string {
    return this.parts.length === 0 ? '' : `WHERE ${this.parts.map((p) => `(${p})`).join(' AND ')}`;
  }

  /** `AND a AND b ...` to extend a WHERE written elsewhere, or ''. */
  get and(): string {
    return this.parts.map((p) => ` AND (${p})`).join('');
  }
}
