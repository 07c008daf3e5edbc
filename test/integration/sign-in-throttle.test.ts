import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  beginSignInAttempt,
  purgeSignInFailures,
  SIGN_IN_LIMITS,
  SIGN_IN_WINDOW_SECONDS,
  signInSucceeded,
} from "../../lib/domain/staff/sign-in-throttle";
import { runMaintenance } from "../support/run-now";
import { startTestApp, type TestApp } from "../support/test-app";

/** The sign-in throttle's counting in PostgreSQL (ADR 0504); the browser and callback paths are in e2e/sign-in-throttle.spec.ts. */
describe("sign-in throttle (PostgreSQL)", () => {
  let app: TestApp;
  let other: TestApp; // a second process on the same database
  beforeAll(async () => {
    app = await startTestApp();
    other = await startTestApp({ DATABASE_URL: app.ctx.config.databaseUrl!, MAILROOM_WORKERS: "off" });
  });
  afterAll(async () => {
    await other?.stop();
    await app?.stop();
  });
  const db = () => app.ctx.database;

  async function fail(email: string, address: string, times: number) {
    for (let i = 0; i < times; i++) expect((await beginSignInAttempt(db(), email, address)).allowed).toBe(true);
  }

  it("refuses the 11th attempt on one email, from any address, with the wait; other emails go on", async () => {
    await fail("Victim@Example.com", "203.0.113.1", 6);
    await fail("victim@example.com", "203.0.113.2", 4);
    const refused = await beginSignInAttempt(db(), "victim@example.com", "203.0.113.3");
    expect(refused.allowed).toBe(false);
    if (!refused.allowed) {
      expect(refused.retryAfterSeconds).toBeGreaterThan(SIGN_IN_WINDOW_SECONDS - 30);
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(SIGN_IN_WINDOW_SECONDS);
    }
    // A refused attempt is not counted: it does not extend the lock.
    const { rows } = await db().pool.query("SELECT count(*)::int AS n FROM sign_in_failures WHERE email = 'victim@example.com'");
    expect(rows[0].n).toBe(10);
    expect((await beginSignInAttempt(other.ctx.database, "someone-else@example.com", "203.0.113.1")).allowed).toBe(true);
  });

  it("frees the email once its 10th most recent failure is older than 15 minutes, and tells the wait from it", async () => {
    await fail("aging@example.com", "198.51.100.1", 10);
    await db().pool.query(
      "UPDATE sign_in_failures SET failed_at = failed_at - make_interval(secs => $1) WHERE email = 'aging@example.com' AND id IN (SELECT min(id) FROM sign_in_failures WHERE email = 'aging@example.com')",
      [SIGN_IN_WINDOW_SECONDS - 120],
    );
    // 9 recent + 1 from 13 minutes ago: still 10 in the window, free in ~2 minutes.
    const r = await beginSignInAttempt(db(), "aging@example.com", "198.51.100.1");
    expect(r.allowed).toBe(false);
    if (!r.allowed) expect(r.retryAfterSeconds).toBeLessThanOrEqual(120);
    await db().pool.query("UPDATE sign_in_failures SET failed_at = failed_at - interval '3 minutes' WHERE email = 'aging@example.com' AND failed_at < now() - interval '1 minute'");
    expect((await beginSignInAttempt(db(), "aging@example.com", "198.51.100.1")).allowed).toBe(true);
  });

  it("refuses an address after 50 failures over many emails, including the right password of a new email", async () => {
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) await fail(`spray${i}@example.com`, "192.0.2.50", 1);
    const r = await beginSignInAttempt(db(), "fresh@example.com", "192.0.2.50");
    expect(r.allowed).toBe(false);
    expect((await beginSignInAttempt(db(), "fresh@example.com", "192.0.2.51")).allowed).toBe(true);
  });

  it("counts IPv6 clients by /64", async () => {
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) await fail(`v6-${i}@example.com`, `2001:db8:5:6::${(i + 1).toString(16)}`, 1);
    expect((await beginSignInAttempt(db(), "v6-new@example.com", "2001:db8:5:6:ffff::1")).allowed).toBe(false);
    expect((await beginSignInAttempt(db(), "v6-new@example.com", "2001:db8:5:7::1")).allowed).toBe(true);
  });

  it("a success clears that email's failures from that address only", async () => {
    await fail("ok@example.com", "203.0.113.9", 9);
    await fail("ok@example.com", "203.0.113.10", 1);
    await fail("neighbour@example.com", "203.0.113.9", 3);
    await signInSucceeded(db(), "OK@example.com", "203.0.113.9");
    const { rows } = await db().pool.query("SELECT email, address, count(*)::int AS n FROM sign_in_failures WHERE email IN ('ok@example.com', 'neighbour@example.com') GROUP BY 1, 2 ORDER BY 1, 2");
    expect(rows).toEqual([
      { email: "neighbour@example.com", address: "203.0.113.9", n: 3 },
      { email: "ok@example.com", address: "203.0.113.10", n: 1 },
    ]);
  });

  it("lets exactly 10 of 40 concurrent attempts through, across two processes", async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => beginSignInAttempt((i % 2 ? other : app).ctx.database, "burst@example.com", `203.0.113.${100 + (i % 20)}`)),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(SIGN_IN_LIMITS.perEmail);
  });

  it("maintenance purges failures older than the window", async () => {
    await fail("old@example.com", "203.0.113.77", 2);
    await db().pool.query("UPDATE sign_in_failures SET failed_at = now() - interval '16 minutes' WHERE email = 'old@example.com'");
    const report = await runMaintenance(app.ctx);
    expect(report.signInFailures).toBeGreaterThanOrEqual(2);
    const { rows } = await db().pool.query("SELECT count(*)::int AS n FROM sign_in_failures WHERE email = 'old@example.com'");
    expect(rows[0].n).toBe(0);
    expect(await purgeSignInFailures(db())).toBe(0);
  });
});
