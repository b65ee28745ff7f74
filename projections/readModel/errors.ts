// The one error the read model throws for bad input: a parameter out of its documented range, of the wrong
// form, or combined with one it excludes. The HTTP layer turns it into a 400 with `message` as the body's
// `error`. Never retriable: the same input fails the same way.

export class ReadModelInputError extends Error {
  override readonly name = 'ReadModelInputError';
  readonly retriable = false;
  constructor(
    /** The offending parameter, as the endpoint names it. */
    readonly param: string,
    message: string,
  ) {
    super(`${param}: ${message}`);
  }
}
