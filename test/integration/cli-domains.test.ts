import dgram from "node:dgram";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../support/test-database";
import { runCli, runCliJson } from "./cli-support";

interface DomainJson {
  name: string;
  status: string;
  verifiedAt: string | null;
  dnsRecords: { purpose: string; type: string; name: string; value: string }[];
}

/**
 * A DNS server on loopback that answers TXT queries from `zone` (RFC 1035
 * wire format) and NXDOMAIN for anything else: the internet's DNS stays out
 * of the test, the CLI's real resolver path does not.
 */
async function startDnsServer(zone: Map<string, string[][]>): Promise<{ address: string; close(): void }> {
  const socket = dgram.createSocket("udp4");
  socket.on("message", (query, peer) => {
    let offset = 12;
    const labels: string[] = [];
    while (query[offset]! > 0) {
      labels.push(query.subarray(offset + 1, offset + 1 + query[offset]!).toString("ascii"));
      offset += query[offset]! + 1;
    }
    const question = query.subarray(12, offset + 5);
    const qtype = query.readUInt16BE(offset + 1);
    const records = qtype === 16 ? zone.get(labels.join(".").toLowerCase()) : undefined;
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2); // id
    header.writeUInt16BE(records ? 0x8180 : 0x8183, 2); // response, recursion available; NXDOMAIN when unknown
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records?.length ?? 0, 6);
    const answers = (records ?? []).map((strings) => {
      const rdata = Buffer.concat(strings.map((t) => Buffer.concat([Buffer.from([t.length]), Buffer.from(t, "ascii")])));
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0); // name: pointer to the question
      fixed.writeUInt16BE(16, 2); // TXT
      fixed.writeUInt16BE(1, 4); // IN
      fixed.writeUInt32BE(60, 6);
      fixed.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([fixed, rdata]);
    });
    socket.send(Buffer.concat([header, question, ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  return { address: `127.0.0.1:${socket.address().port}`, close: () => socket.close() };
}

describe("mailroom domains and plans", { timeout: 180_000 }, () => {
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
      ["spf", "TXT", "bounces.mail.shop.invalid"],
      ["dmarc", "TXT", "_dmarc.mail.shop.invalid"],
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

  it("verifies a domain through DNS once its TXT record is published", async () => {
    const added = await runCliJson<DomainJson>(["domains", "add", "--account", accountId, "dns.shop.invalid"], env);
    const expected = added.dnsRecords[0]!.value;
    const zone = new Map<string, string[][]>([["_mailroom.dns.shop.invalid", [["v=spf1 -all"], ["mailroom-verification=stale"]]]]);
    const dns = await startDnsServer(zone);
    try {
      const verify = ["domains", "verify", "--account", accountId, "dns.shop.invalid", "--dns-server", dns.address];
      const wrong = await runCli(verify, env);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toBe(
        `error: The TXT record at _mailroom.dns.shop.invalid does not match: expected "${expected}", found "v=spf1 -all", "mailroom-verification=stale"\n`,
      );

      // Published (split into two character strings, as long records are).
      zone.set("_mailroom.dns.shop.invalid", [["v=spf1 -all"], [expected.slice(0, 20), expected.slice(20)]]);
      const ok = await runCliJson<{ name: string; status: string; checked: boolean; dkimFound: boolean }>(verify, env);
      expect(ok).toEqual(expect.objectContaining({ name: "dns.shop.invalid", status: "verified", checked: true, dkimFound: false }));
      const listed = await runCliJson<DomainJson[]>(["domains", "list", "--account", accountId], env);
      expect(listed.find((d) => d.name === "dns.shop.invalid")?.status).toBe("verified");
    } finally {
      dns.close();
    }
  });

  it("uses the default account when --account is left out", async () => {
    // No account is marked default here (no server first start): the oldest one is the default.
    const list = await runCliJson<DomainJson[]>(["domains", "list"], env);
    expect(list.map((d) => d.name)).toEqual(["dns.shop.invalid", "mail.shop.invalid", "other.shop.invalid"]);
  });

  it("prints the plans table", async () => {
    const plans = await runCliJson<{ plan: string; perMinute: number | null }[]>(["plans"], env);
    expect(plans.map((p) => p.plan)).toEqual(["trial", "starter", "business", "growth", "unlimited"]);
    expect(plans.find((p) => p.plan === "unlimited")).toEqual({ plan: "unlimited", perMinute: null, perHour: null, perDay: null });
    const human = await runCli(["plans"], {});
    expect(human.stdout.split("\n")[0]).toMatch(/^PLAN\s+PER MINUTE\s+PER HOUR\s+PER DAY$/);
  });
});
