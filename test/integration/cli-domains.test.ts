import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../support/test-database";
import { runCli, runCliJson } from "./cli-support";

interface DomainJson {
  name: string;
  status: string;
  verifiedAt: string | null;
  dnsRecords: { purpose: string; type: string; name: string; value: string }[];
}

describe("mailroom domains and plans", () => {
  let env: Record<string, string>;
  let accountId: string;
  beforeAll(async () => {
    env = { DATABASE_URL: await createTestDatabase() };
    ({ accountId } = await runCliJson<{ accountId: string }>(["accounts", "create", "--name", "Shop", "--plan", "trial"], env));
  });

  it("adds a domain and prints the records to publish", async () => {
    const added = await runCliJson<DomainJson>(["domains", "add", "--account", accountId, "Mail.Shop.Invalid"], env);
    expect(added).toMatchObject({ name: "mail.shop.invalid", status: "pending", verifiedAt: null });
    expect(added.dnsRecords.map((r) => [r.purpose, r.type, r.name])).toEqual([
      ["verification", "TXT", "_mailroom.mail.shop.invalid"],
      ["dkim", "TXT", "mailroom._domainkey.mail.shop.invalid"],
      ["spf", "TXT", "mail.shop.invalid"],
      ["return-path", "MX", "bounces.mail.shop.invalid"],
    ]);
    expect(added.dnsRecords[0]!.value).toMatch(/^mailroom-verification=[0-9a-f]{32}$/);
    expect(added.dnsRecords[1]!.value).toMatch(/^v=DKIM1; k=rsa; p=MII/);

    const human = await runCli(["domains", "add", "--account", accountId, "other.shop.invalid"], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("_mailroom.other.shop.invalid");
    expect(human.stdout).toContain("mailroom domains verify other.shop.invalid");
  });

  it("refuses a domain the account already has, and a bad name", async () => {
    const dup = await runCli(["domains", "add", "--account", accountId, "mail.shop.invalid"], env);
    expect(dup).toMatchObject({ code: 1, stderr: "error: The account already has the domain mail.shop.invalid\n" });
    const bad = await runCli(["domains", "add", "--account", accountId, "-bad-.invalid"], env);
    expect(bad.code).toBe(1);
  });

  it("does not verify a domain whose TXT record is not published", async () => {
    const r = await runCli(["domains", "verify", "--account", accountId, "mail.shop.invalid"], env);
    expect(r.code).toBe(1);
    // No record (NXDOMAIN) or no DNS at all on this machine: either way one line that says so.
    expect(r.stderr).toMatch(/^error: (No TXT record found at _mailroom\.mail\.shop\.invalid|DNS lookup of _mailroom\.mail\.shop\.invalid failed)/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("verifies with --force, and lists domains with their status", async () => {
    const v = await runCliJson<{ name: string; status: string; checked: boolean }>(
      ["domains", "verify", "--account", accountId, "mail.shop.invalid", "--force"],
      env,
    );
    expect(v).toMatchObject({ name: "mail.shop.invalid", status: "verified", checked: false });
    const list = await runCliJson<DomainJson[]>(["domains", "list", "--account", accountId], env);
    expect(list.map((d) => [d.name, d.status])).toEqual([
      ["mail.shop.invalid", "verified"],
      ["other.shop.invalid", "pending"],
    ]);
    expect(list[0]!.verifiedAt).not.toBeNull();
    const missing = await runCli(["domains", "verify", "--account", accountId, "nope.invalid", "--force"], env);
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.stderr).toMatch(/^error: Shop has no sender domain nope\.invalid/);
  });

  it("uses the default account when --account is left out", async () => {
    // No account is marked default here (no server first start): the oldest one is the default.
    const list = await runCliJson<DomainJson[]>(["domains", "list"], env);
    expect(list).toHaveLength(2);
  });

  it("prints the plans table", async () => {
    const plans = await runCliJson<{ plan: string; perMinute: number | null }[]>(["plans"], env);
    expect(plans.map((p) => p.plan)).toEqual(["trial", "starter", "business", "growth", "unlimited"]);
    expect(plans.find((p) => p.plan === "unlimited")).toEqual({ plan: "unlimited", perMinute: null, perHour: null, perDay: null });
    const human = await runCli(["plans"], {});
    expect(human.stdout.split("\n")[0]).toMatch(/^PLAN\s+PER MINUTE\s+PER HOUR\s+PER DAY$/);
  });
});
