/** A refusal of a use case that its caller shows as it is (CLI message, dashboard field error): never an internal fault. */
export class DomainError extends Error {}
