import { z } from "zod";

/**
 * Shaping rules are data (docs/delivery.md, docs/adr/0324): per destination
 * key (a recipient domain, an MX host set, `relay`) or provider name, how
 * Mailroom may use the destination. Unset limits are unlimited. The rule of
 * a destination is `default` overlaid by its provider's, then its
 * destination key's, then its recipient domain's (most specific last).
 */

const positive = z.number().int().min(1).max(1_000_000);

export const shapingRuleSchema = z
  .object({
    /** Connections open to the destination at once (per worker process). */
    maxConnections: positive.optional(),
    /** Messages sent on one connection before it is closed. */
    messagesPerConnection: positive.optional(),
    messagesPerSecond: positive.optional(),
    messagesPerMinute: positive.optional(),
    messagesPerHour: positive.optional(),
    /** New connections per minute. */
    connectionsPerMinute: positive.optional(),
    /** The destination is sent to only over TLS (STARTTLS); without it, the copy is deferred. */
    requireTls: z.boolean().optional(),
  })
  .strict();

export type ShapingRule = z.infer<typeof shapingRuleSchema>;

/** The rules of a shaping file: keys are `default`, provider names or destination keys (lower case). */
export const shapingRulesSchema = z.record(
  z
    .string()
    .min(1)
    .max(1000)
    .regex(/^[a-z0-9._:,-]+$/, "a destination key: a domain, a provider name, an MX host set or relay, lower case"),
  shapingRuleSchema,
);

export type ShapingRules = Record<string, ShapingRule>;

/** The rule for mail with these keys (destinationKeysOf: most specific first). */
export function ruleFor(rules: ShapingRules, keys: readonly string[]): ShapingRule {
  let rule: ShapingRule = { ...rules.default };
  for (const key of [...keys].reverse()) {
    const own = rules[key];
    if (own) rule = { ...rule, ...own };
  }
  return rule;
}

/** The operator's rules over the defaults: a key they name replaces the default rule's members it sets. */
export function mergeRules(defaults: ShapingRules, overrides: ShapingRules): ShapingRules {
  const out: ShapingRules = { ...defaults };
  for (const [key, rule] of Object.entries(overrides)) out[key] = { ...defaults[key], ...rule };
  return out;
}

/**
 * The part of each rule one of `processes` worker processes may use: rates and connections divided
 * among them (at least 1 each), so that together they keep to the rule; the rest unchanged.
 */
export function shareOfRules(rules: ShapingRules, processes: number): ShapingRules {
  if (processes <= 1) return rules;
  const share = (n: number | undefined) => (n === undefined ? undefined : Math.max(1, Math.floor(n / processes)));
  const out: ShapingRules = {};
  for (const [key, r] of Object.entries(rules)) {
    const divided: ShapingRule = {
      ...r,
      maxConnections: share(r.maxConnections),
      messagesPerSecond: share(r.messagesPerSecond),
      messagesPerMinute: share(r.messagesPerMinute),
      messagesPerHour: share(r.messagesPerHour),
      connectionsPerMinute: share(r.connectionsPerMinute),
    };
    out[key] = Object.fromEntries(Object.entries(divided).filter(([, v]) => v !== undefined)) as ShapingRule;
  }
  return out;
}
