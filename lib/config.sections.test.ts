import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  authConfig,
  backlogConfig,
  buildConfig,
  checkCombinations,
  ConfigError,
  databaseConfig,
  deliveryConfig,
  diskConfig,
  inboundConfig,
  parseEnvironment,
  presentVariables,
  publicUrlOf,
  queueConfig,
  submissionConfig,
  webhooksConfig,
  workersConfig,
} from "./config";

/** The parsed variables of an environment: each step of buildConfig starts from them. */
const env = (vars: Record<string, string> = {}) => parseEnvironment(vars);

describe("buildConfig's steps", () => {
  it("takes an empty variable for unset", () => {
    expect(presentVariables({ A: "1", B: "", C: undefined })).toEqual({ A: "1" });
  });

  it("parses the variables with their defaults, and names every one it refuses", () => {
    expect(env()).toMatchObject({ NODE_ENV: "production", PORT: 3000, MAILROOM_DELIVERY: "sandbox" });
    expect(() => env({ PORT: "http", MAILROOM_DELIVERY: "carrier-pigeon" })).toThrow(ConfigError);
    expect(() => env({ PORT: "http", MAILROOM_DELIVERY: "carrier-pigeon" })).toThrow(/PORT:[^]*MAILROOM_DELIVERY:/);
  });

  it("refuses a certificate without its key, and a relay without its URL", () => {
    expect(() => checkCombinations(env({ MAILROOM_SUBMISSION_TLS_CERT: "/c.pem" }))).toThrow(/MAILROOM_SUBMISSION_TLS_KEY/);
    expect(() => checkCombinations(env({ MAILROOM_DELIVERY: "relay" }))).toThrow(/SMTP_RELAY_URL/);
    expect(() => checkCombinations(env({ MAILROOM_DELIVERY: "relay", SMTP_RELAY_URL: "smtp://relay:25" }))).not.toThrow();
  });

  it("drops the public URL's trailing slashes; unset, localhost on the app's port", () => {
    expect(publicUrlOf(env({ MAILROOM_PUBLIC_URL: "https://mail.example.com//" }))).toBe("https://mail.example.com");
    expect(publicUrlOf(env({ PORT: "8080" }))).toBe("http://localhost:8080");
  });

  it("builds the database part: a query timeout of 0 waits for ever", () => {
    expect(databaseConfig(env(), "/d")).toMatchObject({ dataDir: "/d", dbPoolSize: 20, dbQueryTimeoutMs: 60_000, readReplica: undefined });
    expect(databaseConfig(env({ MAILROOM_DB_QUERY_TIMEOUT: " 0 " }), "/d").dbQueryTimeoutMs).toBe(0);
    expect(() => databaseConfig(env({ MAILROOM_DB_QUERY_TIMEOUT: "0s" }), "/d")).toThrow(/MAILROOM_DB_QUERY_TIMEOUT/);
  });

  it("builds the delivery part: HELO name from the public URL, job expiry in whole seconds", () => {
    const delivery = deliveryConfig(env({ MAILROOM_DELIVERY_JOB_EXPIRE: "400ms" }), "https://mail.example.com");
    expect(delivery).toMatchObject({ mode: "sandbox", heloName: "mail.example.com", maxAgeMs: 86_400_000, jobExpireSeconds: 1 });
    expect(delivery.smtp.relay.stallAfterMs).toBe(5000);
    expect(deliveryConfig(env({ MAILROOM_HELO_NAME: "mx.example.org" }), "http://localhost:3000").heloName).toBe("mx.example.org");
  });

  it("builds the workers', queue's and webhooks' parts", () => {
    expect(workersConfig(env({ MAILROOM_WORKERS: "inline" }))).toEqual({ mode: "inline", processes: 2, nice: 10, concurrency: 64 });
    expect(queueConfig(env({ MAILROOM_QUEUE_MAINTENANCE_INTERVAL: "1m" }))).toEqual({ maintenanceIntervalSeconds: 60 });
    expect(webhooksConfig(env())).toMatchObject({ timeoutMs: 10_000, allowPrivate: false, disableAfterMs: 3 * 86_400_000 });
    expect(() => webhooksConfig(env({ MAILROOM_WEBHOOK_DISABLE_AFTER: "400d" }))).toThrow(/MAILROOM_WEBHOOK_DISABLE_AFTER/);
  });

  it("builds the inbound and submission parts: submission listens on HOST unless told otherwise", () => {
    expect(inboundConfig(env()).budgets).toEqual({ perAddressHour: 200 * 1024 * 1024, perAccountHour: 1024 ** 3 });
    expect(submissionConfig(env({ HOST: "0.0.0.0" })).host).toBe("0.0.0.0");
    expect(submissionConfig(env({ HOST: "0.0.0.0", MAILROOM_SUBMISSION_HOST: "127.0.0.1" }))).toMatchObject({ host: "127.0.0.1", port: undefined, idleTimeoutMs: 60_000 });
  });

  it("builds OIDC only with both its issuer and its client", () => {
    expect(authConfig(env({ AUTH_OIDC_ISSUER: "https://id.example.com" })).oidc).toBeUndefined();
    const auth = authConfig(env({ AUTH_OIDC_ISSUER: "https://id.example.com", AUTH_OIDC_CLIENT_ID: "mailroom", MAILROOM_INVITATION_FROM: "Staff@Example.com" }));
    expect(auth.oidc).toEqual({ issuer: "https://id.example.com", clientId: "mailroom", clientSecret: undefined, role: "support", allowedDomains: [], allowedEmails: [] });
    expect(auth.invitationFrom).toBe("staff@example.com");
  });

  it("watches the data directory's disk unless the database is elsewhere and no data directory was set", () => {
    const remote = { DATABASE_URL: "postgres://db/mailroom" };
    expect(diskConfig(env(remote), remote, "/d").dir).toBeUndefined();
    expect(diskConfig(env(), {}, "/d")).toMatchObject({ dir: "/d", minFree: { bytes: 256 * 1024 ** 2 }, checkIntervalMs: 5000 });
    expect(diskConfig(env({ MAILROOM_DISK_CHECK_INTERVAL: "10ms" }), {}, "/d").checkIntervalMs).toBe(100);
    expect(backlogConfig(env({ MAILROOM_MAX_BACKLOG: "0" }))).toEqual({ maxMessages: 0, checkIntervalMs: 250 });
  });

  it("puts the parts together under their names", () => {
    const config = buildConfig({ MAILROOM_DATA_DIR: "/srv/m", MAILROOM_PUBLIC_URL: "https://mail.example.com/" });
    expect(config).toMatchObject({ dataDir: path.resolve("/srv/m"), publicUrl: "https://mail.example.com", publicUrlExplicit: true, sourceEnv: { MAILROOM_DATA_DIR: "/srv/m" } });
    expect(config.delivery).toEqual(deliveryConfig(env(), "https://mail.example.com"));
    expect(config.disk).toEqual(diskConfig(env({ MAILROOM_DATA_DIR: "/srv/m" }), { MAILROOM_DATA_DIR: "/srv/m" }, path.resolve("/srv/m")));
  });
});
