/** A refusal a dashboard function throws: shown to the user as it is (staffAction turns it into `{ ok: false }`). */

export class ActionRefusal extends Error {
  constructor(
    message: string,
    readonly fieldErrors?: Record<string, string>,
  ) {
    super(message);
  }
}

export function refuse(message: string, fieldErrors?: Record<string, string>): never {
  throw new ActionRefusal(message, fieldErrors);
}

