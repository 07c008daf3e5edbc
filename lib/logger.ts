import pino from "pino";

export type Logger = pino.Logger;

/** Structured JSON logs on stdout; child loggers carry requestId/messageId. */
export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { service: "mailroom", ...base }, timestamp: pino.stdTimeFunctions.isoTime });
}
