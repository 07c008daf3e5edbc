import { existsSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { looksLikeEmailAddress } from "./contract/plausible-email";
import { STAFF_ROLES } from "./contract/staff-roles";

/**
 * The only reader of process.env. Everything else receives a Config.
 * Parsing fails fast with a message that names the variable.
 */

const booleanString = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off"])
  .transform((v) => v === "true" || v === "1" || v === "yes" || v === "on");

/**
 * MAILROOM_TRUST_PROXY: how many proxies of our own stand in front of the
 * app (lib/domain/shared/client-ip.ts). A number 0–10; `true`/`yes`/`on` mean 1
 * (one proxy, the usual case), `false`/`no`/`off` mean 0.
 */
const trustProxyHops = z.string().transform((value, ctx) => {
  const v = value.trim().toLowerCase();
  if (["true", "yes", "on"].includes(v)) return 1;
  if (["false", "no", "off"].includes(v)) return 0;
  const n = /^[0-9]{1,2}$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= 0 && n <= 10)) {
    ctx.addIssue({ code: "custom", message: `"${value}" is not a number of proxy hops 0-10 (or true = 1, false = 0)` });
    return z.NEVER;
  }
  return n;
});

/** A comma-separated list, each entry trimmed and lowercased, empty entries dropped. */
function lowercaseList(check: (entry: string) => boolean, what: string) {
  return z.string().transform((value, ctx) => {
    const out: string[] = [];
    for (const raw of value.split(",")) {
      const entry = raw.trim().toLowerCase().replace(/^@/, "");
      if (!entry) continue;
      if (entry.length > 254 || !check(entry)) {
        ctx.addIssue({ code: "custom", message: `"${raw.trim()}" is not ${what}` });
        return z.NEVER;
      }
      out.push(entry);
    }
    return out;
  });
}

/**
 * MAILROOM_DNS_SERVERS: resolver addresses (`127.0.0.1:5353`, `[::1]:53`, `192.0.2.53`), each an IP
 * address with an optional port, as node:dns's Resolver.setServers takes them (lib/net/dns-resolver.ts).
 */
const dnsServerList = z.string().transform((value, ctx) => {
  const out: string[] = [];
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    if (!isResolverAddress(entry)) {
      ctx.addIssue({ code: "custom", message: `"${entry}" is not a resolver address (an IP address with an optional :port)` });
      return z.NEVER;
    }
    out.push(entry);
  }
  return out;
});

function isResolverAddress(entry: string): boolean {
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(entry);
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/.exec(entry);
  const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : v4 ? [v4[1]!, v4[2]] : [entry, undefined];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  return bracketed ? isIP(host) === 6 : v4 ? isIP(host) === 4 : isIP(host) === 6;
}

// A domain name as an allow-list entry: labels of letters, digits and hyphens (IDNs in their xn-- form).
const isDomainName = (d: string) => d.split(".").every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label));

/** A rate: a percentage (`5%`, `0.08%`) or a fraction 0–1 (`0.05`). */
const rateString = z.string().transform((value, ctx) => {
  const v = value.trim();
  const percent = v.endsWith("%");
  const n = Number(percent ? v.slice(0, -1) : v) / (percent ? 100 : 1);
  if (v === "" || v === "%" || !(n > 0 && n <= 1)) {
    ctx.addIssue({ code: "custom", message: `"${value}" is not a rate: a percentage like 5% or a fraction like 0.05 (above 0, at most 1)` });
    return z.NEVER;
  }
  return n;
});

const durationList = z
  .string()
  .transform((value, ctx) => {
    const parts = value
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    const out: number[] = [];
    for (const part of parts) {
      const ms = parseDuration(part);
      if (ms === undefined) {
        ctx.addIssue({ code: "custom", message: `"${part}" is not a duration like 30s, 5m, 1h` });
        return z.NEVER;
      }
      out.push(ms);
    }
    return out;
  });

const envSchema = z.object({
  NODE_ENV: z.string().default("production"),
  DATABASE_URL: z.string().url().optional(),
  // A streaming replica of DATABASE_URL's database for the event reads (lib/storage/read-replica.ts, docs/adr/0035).
  MAILROOM_READ_DATABASE_URL: z.string().url().optional(),
  MAILROOM_READ_MAX_LAG: z.string().default("30s"),
  MAILROOM_READ_CHECK_INTERVAL: z.string().default("250ms"),
  MAILROOM_DATA_DIR: z.string().default("./.data"),
  MAILROOM_EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(54329),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("127.0.0.1"),
  MAILROOM_PUBLIC_URL: z.string().url().optional(),
  MAILROOM_DELIVERY: z.enum(["sandbox", "relay", "mx"]).default("sandbox"),
  SMTP_RELAY_URL: z.string().optional(),
  // process: queue workers in supervised child processes (lib/workers/supervisor.ts); inline: in the app process; off: none here.
  MAILROOM_WORKERS: z.enum(["process", "inline", "off"]).default("process"),
  // Two worker processes at nice 10: measured best on 2 cores (docs/adr/0021, docs/BENCHMARKS.md "End to end").
  MAILROOM_WORKER_PROCESSES: z.coerce.number().int().min(1).max(64).default(2),
  MAILROOM_WORKER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  MAILROOM_DASHBOARD: z.enum(["on", "off"]).default("on"),
  MAILROOM_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  MAILROOM_DELIVERY_RETRY_SCHEDULE: durationList.optional(),
  MAILROOM_DELIVERY_MAX_AGE: z.string().default("24h"),
  MAILROOM_WEBHOOK_RETRY_SCHEDULE: durationList.optional(),
  MAILROOM_WEBHOOK_TIMEOUT: z.string().default("10s"),
  MAILROOM_ALLOW_PRIVATE_WEBHOOKS: booleanString.default(false),
  MAILROOM_WEBHOOK_DISABLE_AFTER: z.string().default("3d"),
  MAILROOM_ALLOW_PRIVATE_MX: booleanString.default(false),
  // Test rigs (a fake internet on loopback): the resolvers of every MX/A/AAAA/TXT lookup, the port of remote MX hosts.
  MAILROOM_DNS_SERVERS: dnsServerList.optional(),
  MAILROOM_MX_PORT: z.coerce.number().int().min(1).max(65535).default(25),
  // Destinations' shaping rules (docs/delivery.md): an operator's JSON file over the defaults, re-read when it changes.
  MAILROOM_SHAPING_FILE: z.string().optional(),
  MAILROOM_MTA_STS: booleanString.default(true),
  MAILROOM_DANE: booleanString.default(false),
  MAILROOM_TLS_EXTRA_CA_FILE: z.string().optional(),
  MAILROOM_MTA_STS_PORT: z.coerce.number().int().min(1).max(65535).default(443),
  // Egress addresses' warm-up schedule (docs/egress.md): a JSON file of daily and hourly caps per day, instead of the conservative default.
  MAILROOM_WARMUP_FILE: z.string().optional(),
  // How long a destination stays suspended after a suspension reply (a block list, Yahoo's TSS04) before it is tried again.
  MAILROOM_SUSPEND_MINUTES: z.coerce.number().int().min(1).max(7 * 24 * 60).default(60),
  MAILROOM_INBOUND_HOST: z.string().default("127.0.0.1"),
  MAILROOM_INBOUND_PORT: z.coerce.number().int().min(0).max(65535).default(2525),
  MAILROOM_INBOUND_MAX_CLIENTS: z.coerce.number().int().min(1).max(100_000).default(100),
  MAILROOM_INBOUND_MAX_MESSAGE_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(10 * 1024 * 1024),
  MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(60),
  MAILROOM_INBOUND_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(10),
  MAILROOM_INBOUND_RETENTION: z.string().default("7d"),
  MAILROOM_INBOUND_INLINE_BYTES: z.coerce.number().int().min(0).max(100 * 1024 * 1024).default(10 * 1024 * 1024),
  // Received messages waiting to be posted past which mail for routes is answered 451 (docs/contract.md §13.3, docs/adr/0049); 0: never.
  MAILROOM_INBOUND_MAX_BACKLOG: z.coerce.number().int().min(0).default(10_000),
  // Bytes of raw MIME stored per client address (IPv6: its /64) and per account per UTC hour; past either, 452 4.3.1 (docs/adr/0807); 0: no budget.
  MAILROOM_INBOUND_BYTES_PER_ADDRESS_HOUR: z.coerce.number().int().min(0).default(200 * 1024 * 1024),
  MAILROOM_INBOUND_BYTES_PER_ACCOUNT_HOUR: z.coerce.number().int().min(0).default(1024 * 1024 * 1024),
  // SMTP submission (lib/submission, docs/smtp.md); unset ports take the defaults of lib/submission/ports.ts.
  MAILROOM_SUBMISSION_HOST: z.string().optional(),
  MAILROOM_SUBMISSION_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  MAILROOM_SUBMISSION_TLS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  MAILROOM_SUBMISSION_TLS_CERT: z.string().optional(),
  MAILROOM_SUBMISSION_TLS_KEY: z.string().optional(),
  MAILROOM_SUBMISSION_MAX_CLIENTS: z.coerce.number().int().min(1).max(100_000).default(100),
  MAILROOM_SUBMISSION_IDLE_TIMEOUT: z.string().default("60s"),
  MAILROOM_SUBMISSION_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(10),
  MAILROOM_SUBMISSION_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().min(1).max(100_000).default(10),
  MAILROOM_SUBMISSION_AUTH_TIMEOUT: z.string().default("30s"),
  MAILROOM_SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  MAILROOM_SANDBOX_COMPLAINT_DELAY: z.string().default("3s"),
  MAILROOM_SANDBOX_RETENTION: z.string().default("7d"),
  // Delivery's SMTP client (docs/adr/0321): per-phase limits towards remote MXs (RFC 5321 §4.5.3.2) and
  // towards the relay (and the sandbox MX), the stall time after which a transaction stops counting
  // against its destination, and the longest wait for a connection slot.
  MAILROOM_MX_CONNECT_TIMEOUT: z.string().default("5m"),
  MAILROOM_MX_GREETING_TIMEOUT: z.string().default("5m"),
  MAILROOM_MX_MAIL_TIMEOUT: z.string().default("5m"),
  MAILROOM_MX_RCPT_TIMEOUT: z.string().default("5m"),
  MAILROOM_MX_DATA_TIMEOUT: z.string().default("2m"),
  MAILROOM_MX_DATA_BLOCK_TIMEOUT: z.string().default("3m"),
  MAILROOM_MX_DATA_END_TIMEOUT: z.string().default("10m"),
  MAILROOM_MX_STALL_AFTER: z.string().default("30s"),
  MAILROOM_RELAY_CONNECT_TIMEOUT: z.string().default("10s"),
  MAILROOM_RELAY_GREETING_TIMEOUT: z.string().default("30s"),
  MAILROOM_RELAY_MAIL_TIMEOUT: z.string().default("30s"),
  MAILROOM_RELAY_RCPT_TIMEOUT: z.string().default("1m"),
  MAILROOM_RELAY_DATA_TIMEOUT: z.string().default("30s"),
  MAILROOM_RELAY_DATA_BLOCK_TIMEOUT: z.string().default("1m"),
  MAILROOM_RELAY_DATA_END_TIMEOUT: z.string().default("2m"),
  MAILROOM_RELAY_STALL_AFTER: z.string().default("5s"),
  MAILROOM_DELIVERY_SLOT_WAIT: z.string().default("1m"),
  // A backstop only: a dead worker's jobs come back through its lease within seconds (lib/queue/job-lease.ts).
  MAILROOM_DELIVERY_JOB_EXPIRE: z.string().default("1h"),
  MAILROOM_QUEUE_MAINTENANCE_INTERVAL: z.string().default("30s"),
  MAILROOM_BOUNCE_DOMAIN: z.string().optional(),
  MAILROOM_HELO_NAME: z.string().optional(),
  // TLS-RPT (RFC 8460, docs/tls-reports.md): the daily reports of outbound TLS to the policy domains that ask; the reports' organization and contact.
  MAILROOM_TLSRPT: z.enum(["on", "off"]).default("on"),
  MAILROOM_TLSRPT_ORGANIZATION: z.string().max(200).optional(),
  MAILROOM_TLSRPT_CONTACT: z.string().max(200).optional(),
  // Days a DKIM selector replaced by a rotation stays published (docs/adr/0134).
  MAILROOM_DKIM_OLD_SELECTOR_DAYS: z.coerce.number().int().min(0).max(365).default(7),
  MAILROOM_TRACKING_SECRET: z.string().min(16).optional(),
  MAILROOM_TRUST_PROXY: trustProxyHops.default(0),
  MAILROOM_MAX_BODY_BYTES: z.coerce.number().int().positive().default(15 * 1024 * 1024),
  // Request rate per API key of the endpoints other than POST /email (docs/contract.md §6.4: 100/s, bursts of 200).
  MAILROOM_API_REQUEST_RATE: z.coerce.number().positive().default(100),
  MAILROOM_API_REQUEST_BURST: z.coerce.number().int().positive().default(200),
  // Per account, the sending requests past its line at once and those waiting their turn (docs/adr/0133); 0 in progress: no line.
  MAILROOM_API_SENDS_PER_ACCOUNT: z.coerce.number().int().min(0).default(32),
  MAILROOM_API_SENDS_WAITING_PER_ACCOUNT: z.coerce.number().int().min(0).default(64),
  // Emails a day an account may send, all its keys together (docs/contract.md §6.5, docs/adr/0132); 0: no such ceiling.
  MAILROOM_ACCOUNT_DAILY_LIMIT: z.coerce.number().int().min(0).default(0),
  // Reputation guardrails (docs/adr/0136): the rates that pause an account's sending ("5%" or a fraction "0.05"), warnings at half.
  MAILROOM_PAUSE_BOUNCE_RATE: rateString.default(0.05),
  MAILROOM_PAUSE_COMPLAINT_RATE: rateString.default(0.0008),
  // Sent recipients a window needs before its rates count.
  MAILROOM_GUARDRAIL_MIN_VOLUME: z.coerce.number().int().min(1).default(100),
  // At most one evaluation per account this often, however many bounces and complaints arrive.
  MAILROOM_GUARDRAIL_DEBOUNCE_SECONDS: z.coerce.number().min(0).max(3600).default(10),
  MAILROOM_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
  // How long a statement may wait for its answer (lib/storage/database.ts, docs/adr/0514); "0" waits for ever.
  MAILROOM_DB_QUERY_TIMEOUT: z.string().default("60s"),
  MAILROOM_DEFAULT_ACCOUNT: z.string().optional(),
  MAILROOM_API_URL: z.string().url().optional(),
  MAILROOM_API_KEY: z.string().optional(),
  MAILROOM_METRICS_TOKEN: z.string().optional(),
  MAILROOM_WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  MAILROOM_QUIET_START: booleanString.default(false),
  // Free space of the data directory (lib/storage/disk-space.ts, docs/adr/0007): a size (1GB, 256MB, bytes) or a percentage of the disk.
  MAILROOM_DISK_WARN_FREE: z.string().default("1GB"),
  MAILROOM_DISK_MIN_FREE: z.string().default("256MB"),
  MAILROOM_DISK_CHECK_INTERVAL: z.string().default("5s"),
  // Messages waiting for a delivery worker past which new mail is refused (docs/contract.md §18, docs/adr/0322); 0: never.
  MAILROOM_MAX_BACKLOG: z.coerce.number().int().min(0).default(1000),
  AUTH_SECRET: z.string().min(16).optional(),
  AUTH_URL: z.string().url().optional(),
  AUTH_OIDC_ISSUER: z.string().url().optional(),
  AUTH_OIDC_CLIENT_ID: z.string().optional(),
  AUTH_OIDC_CLIENT_SECRET: z.string().optional(),
  AUTH_OIDC_ROLE: z.enum(STAFF_ROLES).default("support"),
  // Who may join through OIDC without being a staff user yet (ADR 0511); unset: existing staff only.
  AUTH_OIDC_ALLOWED_DOMAINS: lowercaseList(isDomainName, "a domain name like example.com").optional(),
  AUTH_OIDC_ALLOWED_EMAILS: lowercaseList(looksLikeEmailAddress, "an email address").optional(),
  // The From address of invitation emails (ADR 0512); unset: no-reply@ the default account's first verified domain.
  MAILROOM_INVITATION_FROM: z.string().trim().max(254).refine(looksLikeEmailAddress, "not an email address").optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** The variables as envSchema parses them: what each part of the configuration is built from. */
type Env = z.infer<typeof envSchema>;

export type Config = ReturnType<typeof buildConfig>;

export class ConfigError extends Error {}

/** Parses "250ms", "30s", "5m", "1h", "2d" (a bare number is seconds). */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  return Math.round(n * factor);
}

function requireDuration(name: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new ConfigError(`${name}: "${text}" is not a duration like 30s, 5m, 1h`);
  return ms;
}

/** A duration between 1 ms and `maxMs` (a limit of 0 would time everything out at once). */
function requireLimit(name: string, text: string, maxMs = 24 * 3_600_000): number {
  const ms = requireDuration(name, text);
  if (ms < 1 || ms > maxMs) throw new ConfigError(`${name}: "${text}" must be between 1ms and ${maxMs / 3_600_000}h`);
  return ms;
}

type SmtpLimitPrefix = "MAILROOM_MX" | "MAILROOM_RELAY";

/** Per-phase SMTP limits and the stall time of one kind of next hop (docs/configuration.md "Delivery SMTP timeouts"). */
function smtpLimits(e: Env, prefix: SmtpLimitPrefix) {
  const get = (suffix: string) => {
    const name = `${prefix}_${suffix}` as keyof typeof e;
    return requireLimit(name, String(e[name]));
  };
  return {
    timeouts: {
      connectMs: get("CONNECT_TIMEOUT"),
      greetingMs: get("GREETING_TIMEOUT"),
      mailMs: get("MAIL_TIMEOUT"),
      rcptMs: get("RCPT_TIMEOUT"),
      dataMs: get("DATA_TIMEOUT"),
      dataBlockMs: get("DATA_BLOCK_TIMEOUT"),
      dataEndMs: get("DATA_END_TIMEOUT"),
    },
    stallAfterMs: get("STALL_AFTER"),
  };
}

/** Default delivery backoff: 1 min doubling up to 1 h (docs/delivery.md; docs/contract.md §8.2). */
export const DEFAULT_DELIVERY_RETRY_SCHEDULE_MS = [1, 2, 4, 8, 16, 32, 60].map((m) => m * 60_000);
/** docs/contract.md §10.4: 5 min, 10 min, 15 min, 30 min, 1 h, 2 h, 4 h. */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS = [5, 10, 15, 30, 60, 120, 240].map((m) => m * 60_000);

/**
 * Parses "1GB", "256MB", "512 MiB", "1048576" (bytes) or "5%" (of the
 * disk's size). Units are binary (1 KB = 1024 bytes), as df -h shows them.
 */
export function parseSpaceThreshold(text: string): { bytes: number } | { percent: number } | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*(%|b|kb|kib|k|mb|mib|m|gb|gib|g|tb|tib|t)?$/i.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = (m[2] ?? "b").toLowerCase();
  if (unit === "%") return n <= 100 ? { percent: n } : undefined;
  const power = { b: 0, k: 1, kb: 1, kib: 1, m: 2, mb: 2, mib: 2, g: 3, gb: 3, gib: 3, t: 4, tb: 4, tib: 4 }[unit]!;
  return { bytes: Math.round(n * 1024 ** power) };
}

function requireSpace(name: string, text: string): { bytes: number } | { percent: number } {
  const t = parseSpaceThreshold(text);
  if (!t) throw new ConfigError(`${name}: "${text}" is not a size like 1GB, 256MB or a percentage like 5%`);
  return t;
}

/**
 * The Config of an environment, in steps: the variables set, parsed by
 * envSchema, the combinations checked, then each part of the configuration
 * from its variables (in this order: the first bad value is the error).
 */
export function buildConfig(env: Record<string, string | undefined> = process.env) {
  const present = presentVariables(env);
  const e = parseEnvironment(present);
  checkCombinations(e);
  const dataDir = path.resolve(e.MAILROOM_DATA_DIR);
  const publicUrl = publicUrlOf(e);
  return {
    /** The variables this configuration was built from: what a worker process the app forks is given (lib/workers/supervisor.ts). */
    sourceEnv: present,
    env: e.NODE_ENV,
    isProduction: e.NODE_ENV === "production",
    ...databaseConfig(e, dataDir),
    port: e.PORT,
    host: e.HOST,
    publicUrl,
    publicUrlExplicit: e.MAILROOM_PUBLIC_URL !== undefined,
    delivery: deliveryConfig(e, publicUrl),
    dashboardEnabled: e.MAILROOM_DASHBOARD === "on",
    workers: workersConfig(e),
    queue: queueConfig(e),
    webhooks: webhooksConfig(e),
    inbound: inboundConfig(e),
    submission: submissionConfig(e),
    tracking: { secret: e.MAILROOM_TRACKING_SECRET },
    /**
     * Proxies of our own in front of the HTTP server (MAILROOM_TRUST_PROXY): the client address is the
     * Nth X-Forwarded-For entry from the right; 0: the socket address (lib/domain/shared/client-ip.ts).
     */
    trustProxyHops: e.MAILROOM_TRUST_PROXY,
    api: apiConfig(e),
    /** The account-wide daily ceiling of accounts without their own (accounts.account_limit_per_day); 0: none. */
    accountDailyLimit: e.MAILROOM_ACCOUNT_DAILY_LIMIT,
    /** The instance's reputation guardrails (docs/adr/0136); an account may have its own rates and volume. */
    guardrails: {
      pauseBounceRate: e.MAILROOM_PAUSE_BOUNCE_RATE,
      pauseComplaintRate: e.MAILROOM_PAUSE_COMPLAINT_RATE,
      minVolume: e.MAILROOM_GUARDRAIL_MIN_VOLUME,
      debounceMs: e.MAILROOM_GUARDRAIL_DEBOUNCE_SECONDS * 1000,
    },
    dashboard: dashboardConfig(e),
    auth: authConfig(e),
    metricsToken: e.MAILROOM_METRICS_TOKEN,
    workerMetricsPort: e.MAILROOM_WORKER_METRICS_PORT,
    quietStart: e.MAILROOM_QUIET_START,
    disk: diskConfig(e, present, dataDir),
    backlog: backlogConfig(e),
    logLevel: e.LOG_LEVEL,
  };
}

/** The variables set: an empty one (`DATABASE_URL=` in a .env or compose file) means unset. */
export function presentVariables(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== "")) as Record<string, string>;
}

/** envSchema's values, or a ConfigError naming every variable it refuses. */
export function parseEnvironment(present: Record<string, string>): Env {
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/** Variables that only make sense together. */
export function checkCombinations(e: Env): void {
  if (Boolean(e.MAILROOM_SUBMISSION_TLS_CERT) !== Boolean(e.MAILROOM_SUBMISSION_TLS_KEY)) {
    throw new ConfigError("MAILROOM_SUBMISSION_TLS_CERT and MAILROOM_SUBMISSION_TLS_KEY: set both (PEM files) or neither (a self-signed certificate is generated)");
  }
  if (e.MAILROOM_DELIVERY === "relay" && !e.SMTP_RELAY_URL) {
    throw new ConfigError("SMTP_RELAY_URL: required when MAILROOM_DELIVERY=relay (smtp://user:pass@host:port)");
  }
}

/** MAILROOM_PUBLIC_URL without its trailing slashes; unset, the app's own port on localhost. */
export const publicUrlOf = (e: Env): string => (e.MAILROOM_PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");

export function databaseConfig(e: Env, dataDir: string) {
  return {
    databaseUrl: e.DATABASE_URL,
    /**
     * The event reads' replica (GET /events, GET /stats and so the
     * dashboard's reads): absent, they run on the primary. A replica further
     * behind than maxLagMs, or unreachable, is left for the primary until it
     * catches up (docs/adr/0035); its state is sampled every checkIntervalMs.
     */
    readReplica: e.MAILROOM_READ_DATABASE_URL
      ? {
          url: e.MAILROOM_READ_DATABASE_URL,
          maxLagMs: requireLimit("MAILROOM_READ_MAX_LAG", e.MAILROOM_READ_MAX_LAG),
          checkIntervalMs: Math.max(20, requireLimit("MAILROOM_READ_CHECK_INTERVAL", e.MAILROOM_READ_CHECK_INTERVAL, 60_000)),
        }
      : undefined,
    dataDir,
    embeddedPgPort: e.MAILROOM_EMBEDDED_PG_PORT,
    dbPoolSize: e.MAILROOM_DB_POOL_SIZE,
    dbQueryTimeoutMs: e.MAILROOM_DB_QUERY_TIMEOUT.trim() === "0" ? 0 : requireLimit("MAILROOM_DB_QUERY_TIMEOUT", e.MAILROOM_DB_QUERY_TIMEOUT),
  };
}

export function deliveryConfig(e: Env, publicUrl: string) {
  return {
    mode: e.MAILROOM_DELIVERY,
    relayUrl: e.SMTP_RELAY_URL,
    retryScheduleMs: e.MAILROOM_DELIVERY_RETRY_SCHEDULE ?? DEFAULT_DELIVERY_RETRY_SCHEDULE_MS,
    maxAgeMs: requireDuration("MAILROOM_DELIVERY_MAX_AGE", e.MAILROOM_DELIVERY_MAX_AGE),
    bounceDomain: e.MAILROOM_BOUNCE_DOMAIN,
    heloName: e.MAILROOM_HELO_NAME ?? new URL(publicUrl).hostname,
    /** How long a rotated-out DKIM selector's record stays listed before the daily check drops it. */
    dkimOldSelectorDays: e.MAILROOM_DKIM_OLD_SELECTOR_DAYS,
    /** Direct-MX delivery may connect to loopback/private/reserved addresses (lib/net/address-ranges.ts). */
    allowPrivateMx: e.MAILROOM_ALLOW_PRIVATE_MX,
    /** The resolvers of delivery's and the domain checks' lookups; undefined: the system's (lib/net/dns-resolver.ts). */
    dnsServers: e.MAILROOM_DNS_SERVERS?.length ? e.MAILROOM_DNS_SERVERS : undefined,
    /** The port of remote MX hosts (25; another only in test rigs). */
    mxPort: e.MAILROOM_MX_PORT,
    /** The operator's shaping rules over the defaults (lib/delivery/destinations/shaping-file.ts). */
    shapingFile: e.MAILROOM_SHAPING_FILE,
    /** `mx` only: MTA-STS (RFC 8461) and DANE (RFC 7672) policies, and the roots their checks trust (docs/adr/0326). */
    tls: {
      mtaSts: e.MAILROOM_MTA_STS,
      dane: e.MAILROOM_DANE,
      /** PEM certificates trusted beside the system's roots (a private CA; a test rig's). */
      extraCaFile: e.MAILROOM_TLS_EXTRA_CA_FILE,
      /** The HTTPS port of mta-sts.<domain> (443; another only in test rigs). */
      mtaStsPort: e.MAILROOM_MTA_STS_PORT,
    },
    /** The egress addresses' warm-up schedule over the default (lib/delivery/egress/warmup.ts). */
    warmupFile: e.MAILROOM_WARMUP_FILE,
    /** How long an automatic suspension holds a destination (lib/delivery/destinations/back-off.ts). */
    suspendMs: e.MAILROOM_SUSPEND_MINUTES * 60_000,
    sandboxPort: e.MAILROOM_SANDBOX_PORT,
    sandboxComplaintDelayMs: requireDuration("MAILROOM_SANDBOX_COMPLAINT_DELAY", e.MAILROOM_SANDBOX_COMPLAINT_DELAY),
    sandboxRetentionMs: requireDuration("MAILROOM_SANDBOX_RETENTION", e.MAILROOM_SANDBOX_RETENTION),
    /** SMTP limits towards remote MXs (`mx`) and towards the relay and the sandbox MX (`relay`): docs/adr/0321. */
    smtp: {
      mx: smtpLimits(e, "MAILROOM_MX"),
      relay: smtpLimits(e, "MAILROOM_RELAY"),
      /** Longest wait for a connection slot; then the copy is deferred untried. */
      slotWaitMs: requireLimit("MAILROOM_DELIVERY_SLOT_WAIT", e.MAILROOM_DELIVERY_SLOT_WAIT),
    },
    /** Backstop: a `deliver` job still active after this is taken for dead even if its worker's lease holds. */
    jobExpireSeconds: wholeSeconds("MAILROOM_DELIVERY_JOB_EXPIRE", e.MAILROOM_DELIVERY_JOB_EXPIRE),
    tlsReports: tlsReportsConfig(e, e.MAILROOM_HELO_NAME ?? new URL(publicUrl).hostname),
  };
}

/** TLS-RPT (docs/tls-reports.md): sessions counted and daily reports sent unless off; who the reports say they are from. */
export function tlsReportsConfig(e: Env, host: string) {
  return {
    enabled: e.MAILROOM_TLSRPT === "on",
    /** The submitter: the report file name's sender and the TLS-Report-Submitter header (the instance's host name). */
    submitter: host,
    organization: e.MAILROOM_TLSRPT_ORGANIZATION ?? host,
    contact: e.MAILROOM_TLSRPT_CONTACT ?? `postmaster@${host}`,
  };
}

/** A duration in whole seconds, at least 1 (pg-boss counts in seconds). */
function wholeSeconds(name: string, text: string): number {
  return Math.max(1, Math.round(requireDuration(name, text) / 1000));
}

export function workersConfig(e: Env) {
  return {
    mode: e.MAILROOM_WORKERS,
    processes: e.MAILROOM_WORKER_PROCESSES,
    /** Scheduling priority of forked worker processes (0 = the app's; higher yields the CPU to HTTP when both want it). */
    nice: e.MAILROOM_WORKER_NICE,
    concurrency: e.MAILROOM_WORKER_CONCURRENCY,
  };
}

export function queueConfig(e: Env) {
  return {
    /** How often pg-boss looks for expired jobs (those of dead workers), schedules and retention. */
    maintenanceIntervalSeconds: wholeSeconds("MAILROOM_QUEUE_MAINTENANCE_INTERVAL", e.MAILROOM_QUEUE_MAINTENANCE_INTERVAL),
  };
}

export function webhooksConfig(e: Env) {
  return {
    retryScheduleMs: e.MAILROOM_WEBHOOK_RETRY_SCHEDULE ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
    timeoutMs: requireDuration("MAILROOM_WEBHOOK_TIMEOUT", e.MAILROOM_WEBHOOK_TIMEOUT),
    allowPrivate: e.MAILROOM_ALLOW_PRIVATE_WEBHOOKS,
    /** A webhook whose every attempt failed for this long is disabled (docs/contract.md §16). */
    disableAfterMs: requireLimit("MAILROOM_WEBHOOK_DISABLE_AFTER", e.MAILROOM_WEBHOOK_DISABLE_AFTER, 365 * 24 * 3_600_000),
  };
}

export function inboundConfig(e: Env) {
  return {
    host: e.MAILROOM_INBOUND_HOST,
    port: e.MAILROOM_INBOUND_PORT,
    /** Concurrent SMTP sessions; more are answered 421. */
    maxClients: e.MAILROOM_INBOUND_MAX_CLIENTS,
    /** Largest message (DATA) kept; a bigger one is drained, not buffered, and answered 552. */
    maxMessageBytes: e.MAILROOM_INBOUND_MAX_MESSAGE_BYTES,
    /** New connections per client address (IPv6: per /64) per minute; more are answered 421. */
    connectionsPerMinute: e.MAILROOM_INBOUND_CONNECTIONS_PER_MINUTE,
    /** Open sessions per client address (IPv6: per /64); one more is answered 421 (the submission server's rule). */
    connectionsPerAddress: e.MAILROOM_INBOUND_CONNECTIONS_PER_ADDRESS,
    /** How long a received message (raw MIME, payload, attempts) is kept (docs/adr/0800). */
    retentionMs: requireDuration("MAILROOM_INBOUND_RETENTION", e.MAILROOM_INBOUND_RETENTION),
    /** Attachments larger than this are posted as a signed, expiring download URL instead of base64. */
    inlineBytes: e.MAILROOM_INBOUND_INLINE_BYTES,
    /** Received messages waiting for their post (first or next, due or not) past which mail for routes is answered 451; 0 turns it off. */
    maxBacklog: e.MAILROOM_INBOUND_MAX_BACKLOG,
    /** Bytes of raw MIME stored per client address and per account per UTC hour, 0: no budget (docs/adr/0807). */
    budgets: { perAddressHour: e.MAILROOM_INBOUND_BYTES_PER_ADDRESS_HOUR, perAccountHour: e.MAILROOM_INBOUND_BYTES_PER_ACCOUNT_HOUR },
  };
}

export function submissionConfig(e: Env) {
  return {
    host: e.MAILROOM_SUBMISSION_HOST ?? e.HOST,
    /** undefined: the default (587, or 2587 where 587 may not be bound); 0: off. */
    port: e.MAILROOM_SUBMISSION_PORT,
    /** undefined: the default (465, or 2465 where 465 may not be bound); 0: off. */
    tlsPort: e.MAILROOM_SUBMISSION_TLS_PORT,
    certFile: e.MAILROOM_SUBMISSION_TLS_CERT,
    keyFile: e.MAILROOM_SUBMISSION_TLS_KEY,
    /** Concurrent sessions; more are answered 421. */
    maxClients: e.MAILROOM_SUBMISSION_MAX_CLIENTS,
    idleTimeoutMs: requireDuration("MAILROOM_SUBMISSION_IDLE_TIMEOUT", e.MAILROOM_SUBMISSION_IDLE_TIMEOUT),
    /** Failed AUTH attempts per client address (IPv6: per /64) per minute before AUTH is refused with 454. */
    authFailuresPerMinute: e.MAILROOM_SUBMISSION_AUTH_FAILURES_PER_MINUTE,
    /** Concurrent sessions per client address (IPv6: per /64), both ports together; more are answered 421. */
    connectionsPerAddress: e.MAILROOM_SUBMISSION_CONNECTIONS_PER_ADDRESS,
    /** A session not authenticated this long after its greeting is closed with 421, busy or not. */
    authTimeoutMs: requireDuration("MAILROOM_SUBMISSION_AUTH_TIMEOUT", e.MAILROOM_SUBMISSION_AUTH_TIMEOUT),
  };
}

export function apiConfig(e: Env) {
  return {
    maxBodyBytes: e.MAILROOM_MAX_BODY_BYTES,
    requestRate: { ratePerSecond: e.MAILROOM_API_REQUEST_RATE, burst: e.MAILROOM_API_REQUEST_BURST },
    /** POST /email, /email/batch and the template renders: each account's line (docs/adr/0133); past it, 429. */
    sendAdmission: { inProgress: e.MAILROOM_API_SENDS_PER_ACCOUNT, waiting: e.MAILROOM_API_SENDS_WAITING_PER_ACCOUNT },
  };
}

export function dashboardConfig(e: Env) {
  return {
    defaultAccount: e.MAILROOM_DEFAULT_ACCOUNT,
    apiUrl: e.MAILROOM_API_URL,
    apiKey: e.MAILROOM_API_KEY,
  };
}

/** Staff sign-in: OIDC only when both its issuer and client are set. */
export function authConfig(e: Env) {
  return {
    secret: e.AUTH_SECRET,
    url: e.AUTH_URL,
    oidc:
      e.AUTH_OIDC_ISSUER && e.AUTH_OIDC_CLIENT_ID
        ? {
            issuer: e.AUTH_OIDC_ISSUER,
            clientId: e.AUTH_OIDC_CLIENT_ID,
            clientSecret: e.AUTH_OIDC_CLIENT_SECRET,
            role: e.AUTH_OIDC_ROLE,
            allowedDomains: e.AUTH_OIDC_ALLOWED_DOMAINS ?? [],
            allowedEmails: e.AUTH_OIDC_ALLOWED_EMAILS ?? [],
          }
        : undefined,
    invitationFrom: e.MAILROOM_INVITATION_FROM?.toLowerCase(),
  };
}

export function diskConfig(e: Env, present: Record<string, string>, dataDir: string) {
  return {
    /**
     * The directory whose free space is watched: the data directory with the
     * embedded PostgreSQL; with DATABASE_URL only when MAILROOM_DATA_DIR is
     * set (the database's disk is not this machine's to watch).
     */
    dir: !e.DATABASE_URL || present.MAILROOM_DATA_DIR !== undefined ? dataDir : undefined,
    warnFree: requireSpace("MAILROOM_DISK_WARN_FREE", e.MAILROOM_DISK_WARN_FREE),
    minFree: requireSpace("MAILROOM_DISK_MIN_FREE", e.MAILROOM_DISK_MIN_FREE),
    checkIntervalMs: Math.max(100, requireDuration("MAILROOM_DISK_CHECK_INTERVAL", e.MAILROOM_DISK_CHECK_INTERVAL)),
  };
}

export function backlogConfig(e: Env) {
  return {
    /** Messages waiting for a delivery worker (due deliver-job entries) past which acceptance answers 429 / 451; 0 turns it off. */
    maxMessages: e.MAILROOM_MAX_BACKLOG,
    /** How often each app process reads the depth (one bounded statement, lib/storage/delivery-backlog-rows.ts). */
    checkIntervalMs: 250,
  };
}

// eslint-disable-next-line no-restricted-syntax -- the process's environment, parsed once (a context is given its Config; tests call buildConfig)
let cached: Config | undefined;
/** The process-wide configuration, parsed once from process.env. */
export function getConfig(): Config {
  // A .env file in the working directory fills in what the environment does
  // not set (variables already set win).
  if (!cached && existsSync(".env")) process.loadEnvFile(".env");
  cached ??= buildConfig(process.env);
  return cached;
}
