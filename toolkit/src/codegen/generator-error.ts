/**
 * What the generator says of a document: a construct it rejects (GeneratorError), or one it reads
 * otherwise than written, or not at all (Warning), each at the JSON pointer where the document has it.
 */

/** A construct the generator rejects, at the JSON pointer where the document has it. */
export class GeneratorError extends Error {
  constructor(
    readonly pointer: string,
    message: string,
  ) {
    super(`${pointer}: ${message}`);
    this.name = 'GeneratorError';
  }
}

export interface Warning {
  readonly pointer: string;
  readonly message: string;
}
