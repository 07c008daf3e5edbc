import {
  bigint,
  bigserial,
  boolean,
  customType,
  date,
  doublePrecision,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uuid,
} from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import type { ApiKeyScope } from "../contract/api-keys";
import type { EventType } from "../contract/events";
import type { StaffRole } from "../contract/staff-roles";
import type { SuppressionReason } from "../contract/suppressions";
import type { CheckStatus, FixRecordType, HealthCheckName } from "../contract/domains";

/** One health check of a sender domain as stored (lib/domain/accounts/domain-health). */
export interface StoredHealthCheck {
  check: HealthCheckName;
  status: CheckStatus;
  detail: string;
  fix: { type: FixRecordType; name: string; value: string } | null;
}

/**
 * Drizzle's view of the tables created by migrations/*.sql. The SQL files are
 * the source of truth (they carry the indexes and checks); this file gives
 * typed queries. Keep the two in step.
 */

const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => "bytea",
});

const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const instanceSettings = pgTable("instance_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  createdAt: tstz("created_at").notNull().defaultNow(),
});

export const accounts = pgTable("accounts", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  plan: text("plan").notNull(),
  status: text("status").$type<"active" | "suspended" | "deleted">().notNull().default("active"),
  webhookSigningKey: text("webhook_signing_key").notNull(),
  retentionDays: integer("retention_days").notNull().default(30),
  trackOpens: boolean("track_opens").notNull().default(true),
  trackClicks: boolean("track_clicks").notNull().default(true),
  limitPerMinute: integer("limit_per_minute"),
  limitPerHour: integer("limit_per_hour"),
  limitPerDay: integer("limit_per_day"),
  /** The account-wide daily ceiling (migration 1007): NULL = MAILROOM_ACCOUNT_DAILY_LIMIT, 0 = none. */
  accountLimitPerDay: integer("account_limit_per_day"),
  /** Reputation guardrails (migration 1016, docs/adr/0136): the pause, the warning, the last resume, the account's own thresholds. */
  sendingPausedAt: tstz("sending_paused_at"),
  sendingPausedReason: text("sending_paused_reason"),
  reputationWarnedAt: tstz("reputation_warned_at"),
  reputationWarning: text("reputation_warning"),
  reputationResumedAt: tstz("reputation_resumed_at"),
  reputationResumedBy: text("reputation_resumed_by"),
  pauseBounceRate: doublePrecision("pause_bounce_rate"),
  pauseComplaintRate: doublePrecision("pause_complaint_rate"),
  guardrailMinVolume: integer("guardrail_min_volume"),
  isDefault: boolean("is_default").notNull().default(false),
  createdAt: tstz("created_at").notNull().defaultNow(),
  updatedAt: tstz("updated_at").notNull().defaultNow(),
});

export const apiKeys = pgTable("api_keys", {
  id: uuid("id").primaryKey().defaultRandom(),
  accountId: uuid("account_id").notNull(),
  label: text("label").notNull().default(""),
  prefix: text("prefix").notNull(),
  keyHash: bytea("key_hash").notNull(),
  createdAt: tstz("created_at").notNull().defaultNow(),
  lastUsedAt: tstz("last_used_at"),
  revokedAt: tstz("revoked_at"),
  /** docs/adr/0130-scoped-api-keys.md: full | send | read; NULL sender domains = any. */
  scope: text("scope").$type<ApiKeyScope>().notNull().default("full"),
  senderDomains: text("sender_domains").array(),
});

export const senderDomains = pgTable("sender_domains", {
  id: uuid("id").primaryKey().defaultRandom(),
  accountId: uuid("account_id").notNull(),
  name: text("name").notNull(),
  status: text("status").$type<"pending" | "verified">().notNull().default("pending"),
  verificationToken: text("verification_token").notNull(),
  dkimSelector: text("dkim_selector").notNull(),
  dkimPrivateKey: text("dkim_private_key").notNull(),
  dkimPublicKey: text("dkim_public_key").notNull(),
  createdAt: tstz("created_at").notNull().defaultNow(),
  verifiedAt: tstz("verified_at"),
  /** The last health checks (migration 1012): lib/domain/accounts/domain-health. */
  healthChecks: jsonb("health_checks").$type<StoredHealthCheck[]>(),
  checkedAt: tstz("checked_at"),
  dkimNextSelector: text("dkim_next_selector"),
  dkimNextPrivateKey: text("dkim_next_private_key"),
  dkimNextPublicKey: text("dkim_next_public_key"),
  dkimPreviousSelector: text("dkim_previous_selector"),
  dkimPreviousPublicKey: text("dkim_previous_public_key"),
  dkimPreviousUntil: tstz("dkim_previous_until"),
  /** Migration 1013, docs/adr/0135. */
  trackingDomain: text("tracking_domain"),
  trackingVerifiedAt: tstz("tracking_verified_at"),
});

/** Partitioned by day on created_at, no primary key: each day table has a unique index on id (migration 1002, docs/adr/0044). */
export const messages = pgTable("messages", {
  id: uuid("id").notNull(),
  accountId: uuid("account_id").notNull(),
  apiKeyId: uuid("api_key_id"),
  fromEmail: text("from_email").notNull(),
  fromDomain: text("from_domain").notNull(),
  subject: text("subject").notNull(),
  headers: jsonb("headers").notNull(),
  content: jsonb("content").notNull(),
  /** The trackable links of the HTML body (lib/tracking/tracking-html.ts), once listed; NULL until then. */
  trackedLinks: jsonb("tracked_links").$type<string[]>(),
  tags: text("tags").array().notNull().default([]),
  size: integer("size").notNull().default(0),
  transport: text("transport").notNull().default("api"),
  requestId: text("request_id"),
  createdAt: tstz("created_at").notNull().defaultNow(),
  /** The template and version the content was rendered from (migration 0910); NULL otherwise. */
  templateId: bigint("template_id", { mode: "number" }),
  templateVersion: integer("template_version"),
  /** Scheduled sends (migration 0920, docs/adr/0125): when, and 'scheduled' | 'sending' | 'cancelled'; NULL for a message sent at once. */
  sendAt: tstz("send_at"),
  scheduleStatus: text("schedule_status"),
});

export type RecipientKind = "to" | "cc" | "bcc";
export type RecipientStatus = "queued" | "deferred" | "delivered" | "failed" | "rejected" | "suppressed";

/** Partitioned by day on the id, whose high bits are its UTC day number (migration 0996, docs/adr/0043). */
export const messageRecipients = pgTable("message_recipients", {
  id: bigint("id", { mode: "number" })
    .primaryKey()
    .default(sql`((floor(extract(epoch FROM now()) / 86400)::bigint << 32) | (nextval('message_recipients_id_seq') & 4294967295))`),
  messageId: uuid("message_id").notNull(),
  accountId: uuid("account_id").notNull(),
  email: text("email").notNull(),
  name: text("name").notNull().default(""),
  kind: text("kind").$type<RecipientKind>().notNull(),
  status: text("status").$type<RecipientStatus>().notNull().default("queued"),
  attempts: integer("attempts").notNull().default(0),
  lastReply: text("last_reply"),
  lastAttemptAt: tstz("last_attempt_at"),
  nextAttemptAt: tstz("next_attempt_at"),
  updatedAt: tstz("updated_at").notNull().defaultNow(),
});

/** Partitioned on recipient_id with the recipients' day bounds; no primary key (migration 0998, docs/adr/0043). */
export const deliveryAttempts = pgTable("delivery_attempts", {
  id: bigserial("id", { mode: "number" }).notNull(),
  recipientId: bigint("recipient_id", { mode: "number" }).notNull(),
  messageId: uuid("message_id").notNull(),
  accountId: uuid("account_id").notNull(),
  attemptedAt: tstz("attempted_at").notNull().defaultNow(),
  outcome: text("outcome").notNull(),
  smtpCode: integer("smtp_code"),
  enhancedCode: text("enhanced_code"),
  reply: text("reply").notNull().default(""),
  mxHost: text("mx_host").notNull().default(""),
  durationMs: integer("duration_ms").notNull().default(0),
  tls: jsonb("tls"),
});

/** Partitioned by day on logged_at (migration 0952, docs/adr/0030): no primary key, ids from events_id_seq. */
export const events = pgTable("events", {
  id: bigint("id", { mode: "number" })
    .notNull()
    .default(sql`nextval('events_id_seq')`),
  accountId: uuid("account_id").notNull(),
  messageId: uuid("message_id").notNull(),
  type: text("type").$type<EventType>().notNull(),
  loggedAt: bigint("logged_at", { mode: "number" }).notNull(),
  logLevel: text("log_level").notNull().default("info"),
  recipient: text("recipient").notNull().default(""),
  reason: text("reason").notNull().default(""),
  ip: text("ip"),
  geoCity: text("geo_city"),
  geoRegion: text("geo_region"),
  geoCountry: text("geo_country"),
  url: text("url"),
  details: jsonb("details").$type<Record<string, unknown>>(),
});

/** Where the unpartitioned event log of an upgraded installation ends (migration 0950). */
export const eventLogLayout = pgTable("event_log_layout", {
  onlyRow: boolean("only_row").primaryKey().default(true),
  legacyBefore: bigint("legacy_before", { mode: "number" }).notNull(),
});

// Migration 0970: the cut-over of each table partitioned by the generic day functions (docs/adr/0040).
export const dayPartitionLayouts = pgTable("day_partition_layouts", {
  parent: text("parent").primaryKey(),
  legacyBefore: bigint("legacy_before", { mode: "number" }).notNull(),
  keyKind: text("key_kind").$type<"time" | "day_id">().notNull().default("time"),
});

export const webhooks = pgTable("webhooks", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  accountId: uuid("account_id").notNull(),
  event: text("event").notNull(),
  url: text("url").notNull(),
  status: text("status").notNull().default("Enabled"),
  createdAt: tstz("created_at").notNull().defaultNow(),
  updatedAt: tstz("updated_at").notNull().defaultNow(),
  lastResponseCode: integer("last_response_code").notNull().default(0),
  lastResponseBody: text("last_response_body").notNull().default(""),
  lastResponseAt: tstz("last_response_at"),
  lastResponseTryCounter: integer("last_response_try_counter").notNull().default(0),
  failingSince: tstz("failing_since"),
  disabledAt: tstz("disabled_at"),
  disabledReason: text("disabled_reason").notNull().default(""),
});

/** Partitioned by day on the id, whose high bits are its UTC day number (migration 0992, docs/adr/0042). */
export const webhookNotifications = pgTable("webhook_notifications", {
  id: bigint("id", { mode: "number" })
    .primaryKey()
    .default(sql`((floor(extract(epoch FROM now()) / 86400)::bigint << 32) | (nextval('webhook_notifications_id_seq') & 4294967295))`),
  webhookId: bigint("webhook_id", { mode: "number" }).notNull(),
  accountId: uuid("account_id").notNull(),
  eventId: bigint("event_id", { mode: "number" }).notNull(),
  payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
  status: text("status").$type<"pending" | "delivered" | "failed" | "cancelled" | "held">().notNull().default("pending"),
  singleAttempt: boolean("single_attempt").notNull().default(false),
  attempts: integer("attempts").notNull().default(0),
  nextAttemptAt: tstz("next_attempt_at").notNull().defaultNow(),
  createdAt: tstz("created_at").notNull().defaultNow(),
  completedAt: tstz("completed_at"),
  /** When a retry or a replay last queued it again (migration 1008, docs/adr/0411). */
  resentAt: tstz("resent_at"),
});

/** An account's resends of webhook deliveries in the current UTC hour (migration 1008, docs/adr/0411). */
export const webhookResendWindows = pgTable("webhook_resend_windows", {
  accountId: uuid("account_id").primaryKey(),
  windowStart: bigint("window_start", { mode: "number" }).notNull(),
  queued: integer("queued").notNull(),
});

export const webhookAttempts = pgTable("webhook_attempts", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  notificationId: bigint("notification_id", { mode: "number" }).notNull(),
  webhookId: bigint("webhook_id", { mode: "number" }).notNull(),
  attemptedAt: tstz("attempted_at").notNull().defaultNow(),
  tryNumber: integer("try_number").notNull(),
  statusCode: integer("status_code").notNull().default(0),
  durationMs: integer("duration_ms").notNull().default(0),
  bodyExcerpt: text("body_excerpt").notNull().default(""),
  error: text("error"),
});

export type { SuppressionReason };

export const suppressions = pgTable(
  "suppressions",
  {
    accountId: uuid("account_id").notNull(),
    email: text("email").notNull(),
    reason: text("reason").$type<SuppressionReason>().notNull(),
    detail: text("detail").notNull().default(""),
    messageId: uuid("message_id"),
    createdAt: tstz("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.email] })],
);

export const limitCounters = pgTable(
  "limit_counters",
  {
    apiKeyId: uuid("api_key_id").notNull(),
    windowKind: text("window_kind").$type<"minute" | "hour" | "day">().notNull(),
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    used: integer("used").notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.windowKind, t.windowStart] })],
);

/** The account-wide daily ceiling's counters (migration 1007, docs/adr/0132): one row per account and UTC day. */
export const accountLimitCounters = pgTable(
  "account_limit_counters",
  {
    accountId: uuid("account_id").notNull(),
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    used: integer("used").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.windowStart] })],
);

export type { StaffRole };

export const staffUsers = pgTable("staff_users", {
  id: uuid("id").primaryKey().defaultRandom(),
  email: text("email").notNull(),
  name: text("name").notNull().default(""),
  role: text("role").$type<StaffRole>().notNull(),
  passwordHash: text("password_hash").notNull(),
  createdAt: tstz("created_at").notNull().defaultNow(),
  lastLoginAt: tstz("last_login_at"),
  /** The password was generated for the user (first start, CLI): they are asked to choose their own (migration 0501). */
  mustChangePassword: boolean("must_change_password").notNull().default(false),
  /** An instance operator: sees every account and manages accounts (migration 0510). */
  isOwner: boolean("is_owner").notNull().default(false),
  /** Carried in each dashboard session; incrementing it ends the user's sessions (migration 0800, docs/adr/0507). */
  sessionVersion: integer("session_version").notNull().default(0),
});

// Migration 0510: a staff user's role in each account they belong to.
export const staffMemberships = pgTable(
  "staff_memberships",
  {
    userId: uuid("user_id").notNull(),
    accountId: uuid("account_id").notNull(),
    role: text("role").$type<StaffRole>().notNull(),
    createdAt: tstz("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.accountId] })],
);

// Migration 0810: an invitation to join an account (a single-use token, stored hashed), ADR 0512.
export const staffInvitations = pgTable("staff_invitations", {
  id: uuid("id").primaryKey().defaultRandom(),
  accountId: uuid("account_id").notNull(),
  email: text("email").notNull(),
  role: text("role").$type<StaffRole>().notNull(),
  tokenHash: text("token_hash").notNull(),
  invitedBy: text("invited_by").notNull().default(""),
  createdAt: tstz("created_at").notNull().defaultNow(),
  expiresAt: tstz("expires_at").notNull(),
  acceptedAt: tstz("accepted_at"),
});

// Migration 0510: the dashboard's API key of each account, sealed with a key derived from AUTH_SECRET.
export const dashboardApiKeys = pgTable("dashboard_api_keys", {
  accountId: uuid("account_id").primaryKey(),
  apiKeyId: uuid("api_key_id").notNull(),
  sealed: text("sealed").notNull(),
  createdAt: tstz("created_at").notNull().defaultNow(),
});

/** Partitioned by day on received_at (migration 0972, docs/adr/0040): no primary key, ids from sandbox_messages_id_seq. */
export const sandboxMessages = pgTable("sandbox_messages", {
  id: bigint("id", { mode: "number" })
    .notNull()
    .default(sql`nextval('sandbox_messages_id_seq')`),
  receivedAt: tstz("received_at").notNull().defaultNow(),
  mailFrom: text("mail_from").notNull().default(""),
  rcptTo: text("rcpt_to").array().notNull(),
  subject: text("subject").notNull().default(""),
  messageIdHeader: text("message_id_header").notNull().default(""),
  mailroomMessageId: uuid("mailroom_message_id"),
  size: integer("size").notNull(),
  raw: bytea("raw").notNull(),
  /** The account of the recipient row its signed VERP envelope sender names (migrations 0510, 0790; docs/adr/0307); null when none. */
  accountId: uuid("account_id"),
});

// Migration 0100: hourly event summaries for exact counts (lib/domain/events/event-counts.ts).
export const eventHourCounts = pgTable(
  "event_hour_counts",
  {
    accountId: uuid("account_id").notNull(),
    hour: bigint("hour", { mode: "number" }).notNull(),
    type: text("type").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.hour, t.type] })],
);

/** Hourly counts per tag, recipient domain and sender domain (migration 1014, docs/adr/0517); value '' is the rest of an hour. */
export const eventHourBreakdowns = pgTable(
  "event_hour_breakdowns",
  {
    accountId: uuid("account_id").notNull(),
    dimension: text("dimension").notNull(),
    hour: bigint("hour", { mode: "number" }).notNull(),
    value: text("value").notNull(),
    type: text("type").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.dimension, t.hour, t.value, t.type] })],
);

export const eventRollupState = pgTable("event_rollup_state", {
  accountId: uuid("account_id").primaryKey(),
  rolledUntil: bigint("rolled_until", { mode: "number" }).notNull(),
});

/** Failed staff sign-ins, counted per email and client address (migration 0500, lib/domain/staff/sign-in-throttle.ts). */
export const signInFailures = pgTable("sign_in_failures", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  email: text("email").notNull(),
  address: text("address").notNull(),
  failedAt: tstz("failed_at").notNull().defaultNow(),
});

/** Repeated opens and clicks of one copy within a window (migration 0500, recordEngagement); partitioned on recipient_id with the recipients' day bounds (migration 0998, docs/adr/0043). */
export const engagementWindows = pgTable(
  "engagement_windows",
  {
    recipientId: bigint("recipient_id", { mode: "number" }).notNull(),
    kind: text("kind").$type<"opened" | "clicked">().notNull(),
    linkKey: text("link_key").notNull(),
    windowStart: tstz("window_start").notNull(),
    hits: bigint("hits", { mode: "number" }).notNull(),
    logged: bigint("logged", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.recipientId, t.kind, t.linkKey] })],
);

/** Idempotency-Key answers of POST /email per API key (migration 0710, lib/domain/sending/idempotency-keys.ts). */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    apiKeyId: uuid("api_key_id").notNull(),
    key: text("key").notNull(),
    requestHash: bytea("request_hash").notNull(),
    messageId: uuid("message_id"),
    responseStatus: integer("response_status").notNull(),
    responseBody: text("response_body").notNull(),
    createdAt: tstz("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.key] })],
);

/** Live queue worker processes holding job leases (migration 0720, lib/queue/job-lease.ts). */
export const queueWorkers = pgTable("queue_workers", {
  id: serial("id").primaryKey(),
  pid: integer("pid").notNull(),
  host: text("host").notNull(),
  role: text("role").notNull(),
  startedAt: tstz("started_at").notNull().defaultNow(),
  heartbeatAt: tstz("heartbeat_at").notNull().defaultNow(),
});

/** Jobs returned to the queue from dead workers, per reclaim (migration 0720). */
export const queueReclaims = pgTable("queue_reclaims", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  queue: text("queue").notNull(),
  jobs: integer("jobs").notNull(),
  reclaimedAt: tstz("reclaimed_at").notNull().defaultNow(),
});

/** Templates (migration 0910, docs/adr/0120): a name per account; the content is in template_versions. */
export const templates = pgTable("templates", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  accountId: uuid("account_id").notNull(),
  name: text("name").notNull(),
  archivedAt: tstz("archived_at"),
  createdAt: tstz("created_at").notNull().defaultNow(),
});

/** Versions are only inserted, never updated. */
export const templateVersions = pgTable(
  "template_versions",
  {
    templateId: bigint("template_id", { mode: "number" }).notNull(),
    version: integer("version").notNull(),
    subject: text("subject").notNull(),
    html: text("html"),
    plain: text("plain"),
    createdAt: tstz("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.version] })],
);

/** Inbound routes: an address or `*@domain` of an account and the URL its mail is posted to (migration 0900, lib/domain/inbound). */
export const inboundRoutes = pgTable("inbound_routes", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  accountId: uuid("account_id").notNull(),
  match: text("match").notNull(),
  webhookUrl: text("webhook_url").notNull(),
  createdAt: tstz("created_at").notNull().defaultNow(),
});

/**
 * Received messages, one row per route of an SMTP transaction, raw MIME until expiry (migration 0900);
 * partitioned by day on received_at (migration 0982, docs/adr/0041): no primary key, a unique id per day table.
 * One raw copy per transaction (migration 1006, docs/adr/0807): the other rows name its row in rawOf.
 */
export const inboundMessages = pgTable("inbound_messages", {
  id: uuid("id").notNull(),
  accountId: uuid("account_id").notNull(),
  routeId: bigint("route_id", { mode: "number" }),
  webhookUrl: text("webhook_url").notNull(),
  originalRecipient: text("original_recipient").notNull(),
  mailboxHash: text("mailbox_hash").notNull().default(""),
  mailFrom: text("mail_from").notNull().default(""),
  remoteIp: text("remote_ip").notNull().default(""),
  helo: text("helo").notNull().default(""),
  subject: text("subject").notNull().default(""),
  fromEmail: text("from_email").notNull().default(""),
  size: integer("size").notNull(),
  raw: bytea("raw").notNull(),
  /** The row of the same transaction that holds the raw MIME (this row's raw is empty); null when this row holds it. */
  rawOf: uuid("raw_of"),
  /** Every recipient of the route in the transaction, [{Email, MailboxHash}]; null on rows stored before migration 1006. */
  recipients: jsonb("recipients").$type<{ Email: string; MailboxHash: string }[]>(),
  /** Rows stored before migration 1005; newer ones keep the posted text in payloadText. */
  payload: jsonb("payload"),
  payloadText: text("payload_text"),
  repliedToMessageId: uuid("replied_to_message_id"),
  status: text("status").notNull().default("pending"),
  attempts: integer("attempts").notNull().default(0),
  nextAttemptAt: tstz("next_attempt_at"),
  receivedAt: tstz("received_at").notNull().defaultNow(),
  expiresAt: tstz("expires_at").notNull(),
});

/** Bytes of raw MIME received per client address or account per UTC hour (migration 1006, docs/adr/0807). */
export const inboundByteCounters = pgTable(
  "inbound_byte_counters",
  {
    scope: text("scope").$type<"address" | "account">().notNull(),
    key: text("key").notNull(),
    hourStart: bigint("hour_start", { mode: "number" }).notNull(),
    bytes: bigint("bytes", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key, t.hourStart] })],
);

/** Each POST of an inbound message to its route's URL (migration 0900); no foreign key since 0982 (the purge deletes them, docs/adr/0041). */
export const inboundAttempts = pgTable("inbound_attempts", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  inboundMessageId: uuid("inbound_message_id").notNull(),
  attemptedAt: tstz("attempted_at").notNull().defaultNow(),
  durationMs: integer("duration_ms").notNull().default(0),
  statusCode: integer("status_code").notNull().default(0),
  body: text("body").notNull().default(""),
  error: text("error"),
});

/** Holds on delivery destinations (migration 1009, lib/delivery/destinations/holds.ts): a key, optionally an account, until when. */
export const destinationHolds = pgTable("destination_holds", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  destinationKey: text("destination_key").notNull(),
  accountId: uuid("account_id"),
  until: tstz("until"),
  reason: text("reason").notNull().default(""),
  source: text("source").$type<"operator" | "automatic">().notNull(),
  placedBy: text("placed_by").notNull(),
  placedAt: tstz("placed_at").notNull().defaultNow(),
});

/** DMARC aggregate reports, one per report and verifying account (migration 1017, docs/adr/0809). */
export const dmarcReports = pgTable("dmarc_reports", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  accountId: uuid("account_id").notNull(),
  domain: text("domain").notNull(),
  day: date("day", { mode: "string" }).notNull(),
  orgName: text("org_name").notNull(),
  reporter: text("reporter").notNull(),
  reportId: text("report_id").notNull(),
  dateBegin: tstz("date_begin").notNull(),
  dateEnd: tstz("date_end").notNull(),
  policy: text("policy").notNull(),
  receivedAt: tstz("received_at").notNull().defaultNow(),
});

/** A DMARC report's records: one per source address and result (migration 1017). */
export const dmarcReportRows = pgTable("dmarc_report_rows", {
  reportId: bigint("report_id", { mode: "number" }).notNull(),
  sourceIp: text("source_ip").notNull(),
  count: integer("count").notNull(),
  disposition: text("disposition").$type<"none" | "quarantine" | "reject">().notNull(),
  spfResult: text("spf_result").notNull(),
  dkimResult: text("dkim_result").notNull(),
  spfAligned: boolean("spf_aligned").notNull(),
  dkimAligned: boolean("dkim_aligned").notNull(),
  knownSource: boolean("known_source").notNull(),
});

/** TLS sessions towards a policy domain, counted per UTC day and TLS-RPT key (migration 1019, docs/adr/0328). */
export const tlsSessionCounts = pgTable(
  "tls_session_counts",
  {
    day: date("day", { mode: "string" }).notNull(),
    policyDomain: text("policy_domain").notNull(),
    sessionKey: text("session_key").notNull(),
    policyType: text("policy_type").$type<"sts" | "tlsa" | "no-policy-found">().notNull(),
    policyString: jsonb("policy_string").$type<string[]>().notNull(),
    mxHost: text("mx_host").notNull(),
    resultType: text("result_type").notNull(),
    receivingIp: text("receiving_ip").notNull(),
    sendingIp: text("sending_ip").notNull(),
    additionalInformation: text("additional_information").notNull(),
    sessionCount: bigint("session_count", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.day, t.policyDomain, t.sessionKey] })],
);

/** TLS-RPT reports sent, or being sent, per policy domain, day and rua (migration 1019). */
export const tlsReportsSent = pgTable(
  "tls_reports_sent",
  {
    policyDomain: text("policy_domain").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    rua: text("rua").notNull(),
    reportId: text("report_id").notNull(),
    status: text("status").$type<"sending" | "sent" | "failed">().notNull(),
    detail: text("detail").notNull().default(""),
    attempts: integer("attempts").notNull().default(1),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.policyDomain, t.day, t.rua] })],
);

/** Egress pools (migration 1018, docs/adr/0327); `default` always exists. */
export const egressPools = pgTable("egress_pools", {
  name: text("name").primaryKey(),
  createdAt: tstz("created_at").notNull().defaultNow(),
});

/** Source addresses of direct-MX delivery, with their EHLO name and pool (migration 1018). */
export const egressAddresses = pgTable("egress_addresses", {
  address: text("address").primaryKey(),
  ehloName: text("ehlo_name").notNull(),
  pool: text("pool").notNull(),
  warmupFrom: tstz("warmup_from").notNull().defaultNow(),
  createdAt: tstz("created_at").notNull().defaultNow(),
});

/** An account's egress pool; no row: `default` (migration 1018). */
export const egressAssignments = pgTable("egress_assignments", {
  accountId: uuid("account_id").primaryKey(),
  pool: text("pool").notNull(),
  assignedAt: tstz("assigned_at").notNull().defaultNow(),
});

/** Copies tried per egress address, destination provider and UTC hour (migration 1018). */
export const egressUsage = pgTable(
  "egress_usage",
  {
    address: text("address").notNull(),
    provider: text("provider").notNull(),
    hour: tstz("hour").notNull(),
    copies: integer("copies").notNull(),
  },
  (t) => [primaryKey({ columns: [t.address, t.provider, t.hour] })],
);

/** MTA-STS policies as fetched, kept for their max_age (migration 1021, docs/adr/0326). */
export const mtaStsPolicies = pgTable("mta_sts_policies", {
  domain: text("domain").primaryKey(),
  recordId: text("record_id").notNull(),
  policy: text("policy").notNull(),
  fetchedAt: tstz("fetched_at").notNull().defaultNow(),
  expiresAt: tstz("expires_at").notNull(),
});

/** The back-off's throttles as the worker processes set them, for queue list (migration 1022, docs/adr/0324). */
export const destinationThrottles = pgTable(
  "destination_throttles",
  {
    key: text("key").notNull(),
    domain: text("domain").notNull(),
    perMinute: integer("per_minute").notNull(),
    connections: integer("connections").notNull(),
    reason: text("reason").notNull(),
    endsAt: tstz("ends_at").notNull(),
    updatedAt: tstz("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.key, t.domain] })],
);
