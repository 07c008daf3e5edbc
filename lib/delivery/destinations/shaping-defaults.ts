import type { ShapingRules } from "./shaping-rules";

/**
 * The shaping rules Mailroom ships: conservative per-IP figures for the big
 * providers, written from their postmaster guidance and KumoMTA's public
 * community shaping data (docs/adr/0324 says where each comes from). An
 * operator overrides any of them in MAILROOM_SHAPING_FILE. `default` applies
 * to every destination without a rule of its own.
 */
export const DEFAULT_SHAPING_RULES: ShapingRules = {
  // No limit of its own: every other destination (and the relay) keeps the SMTP pool's (docs/adr/0321).
  default: {},
  gmail: { maxConnections: 5, messagesPerConnection: 50, messagesPerMinute: 600, requireTls: true },
  outlook: { maxConnections: 8, messagesPerConnection: 100, messagesPerMinute: 300, connectionsPerMinute: 60 },
  yahoo: { maxConnections: 5, messagesPerConnection: 20, messagesPerMinute: 300 },
  icloud: { maxConnections: 5, messagesPerConnection: 50, messagesPerMinute: 300 },
  comcast: { maxConnections: 3, messagesPerConnection: 25, messagesPerMinute: 120 },
  gmx: { maxConnections: 5, messagesPerConnection: 50 },
};
