import { describe, expect, it, vi } from "vitest";
import type { PolicyFetch } from "./mta-sts-fetch";
import { createStsPolicies, type StsPolicyDeps } from "./mta-sts-policies";

const policyText = (mode: string, maxAge: number, mx = "mx.example.test") => `version: STSv1\nmode: ${mode}\nmx: ${mx}\nmax_age: ${maxAge}\n`;
const notFound = () => Promise.reject(Object.assign(new Error("no record"), { code: "ENOTFOUND" }));

function rig(initial: { id?: string; text?: string | PolicyFetch }) {
  let clock = 1_000_000;
  const state = { ...initial };
  const failures: { domain: string; resultType: string }[] = [];
  const resolveTxt = vi.fn((name: string) => (state.id === undefined || name !== "_mta-sts.example.test" ? notFound() : Promise.resolve([["v=STSv1; id=", state.id]])));
  const fetchPolicy = vi.fn(
    async (): Promise<PolicyFetch> => (typeof state.text === "string" ? { ok: true, text: state.text } : (state.text ?? { ok: false, webpki: false, reason: "HTTP 404" })),
  );
  const deps: StsPolicyDeps = { resolveTxt, fetchPolicy, now: () => clock, recheckMs: 60_000, onFailure: (domain, f) => failures.push({ domain, resultType: f.resultType }) };
  const policies = createStsPolicies(deps);
  return { policies, state, resolveTxt, fetchPolicy, failures, advance: (ms: number) => (clock += ms), settle: () => new Promise((r) => setTimeout(r, 0)) };
}

describe("MTA-STS policies, cached for max_age (RFC 8461 §5.1)", () => {
  it("fetches a domain's policy once and then serves it from memory", async () => {
    const r = rig({ id: "1", text: policyText("enforce", 86400) });
    expect((await r.policies.lookup("example.test")).policy).toMatchObject({ mode: "enforce", mx: ["mx.example.test"] });
    for (let i = 0; i < 100; i++) await r.policies.lookup("Example.TEST");
    expect(r.resolveTxt).toHaveBeenCalledTimes(1);
    expect(r.fetchPolicy).toHaveBeenCalledTimes(1);
  });

  it("concurrent first lookups share one fetch", async () => {
    const r = rig({ id: "1", text: policyText("testing", 86400) });
    const all = await Promise.all(Array.from({ length: 20 }, () => r.policies.lookup("example.test")));
    expect(all.every((l) => l.policy?.mode === "testing")).toBe(true);
    expect(r.fetchPolicy).toHaveBeenCalledTimes(1);
  });

  it("a domain without the TXT record has no policy, and is asked again only after the recheck time", async () => {
    const r = rig({});
    expect(await r.policies.lookup("plain.test")).toEqual({ policy: undefined });
    await r.policies.lookup("plain.test");
    expect(r.resolveTxt).toHaveBeenCalledTimes(1);
    r.advance(61_000);
    await r.policies.lookup("plain.test");
    expect(r.resolveTxt).toHaveBeenCalledTimes(2);
    expect(r.fetchPolicy).not.toHaveBeenCalled();
  });

  it("a new id fetches the policy again (in the background, the old one serving meanwhile)", async () => {
    const r = rig({ id: "1", text: policyText("testing", 86400) });
    await r.policies.lookup("example.test");
    r.state.id = "2";
    r.state.text = policyText("enforce", 86400);
    r.advance(61_000);
    expect((await r.policies.lookup("example.test")).policy?.mode).toBe("testing");
    await r.settle();
    expect((await r.policies.lookup("example.test")).policy?.mode).toBe("enforce");
    expect(r.fetchPolicy).toHaveBeenCalledTimes(2);
  });

  it("keeps a cached policy when the TXT record disappears or the fetch fails, until it expires", async () => {
    const r = rig({ id: "1", text: policyText("enforce", 3600) });
    await r.policies.lookup("example.test");
    r.state.id = undefined; // an attacker strips the record
    r.advance(61_000);
    await r.policies.lookup("example.test");
    await r.settle();
    expect((await r.policies.lookup("example.test")).policy?.mode).toBe("enforce");
    r.state.id = "2";
    r.state.text = { ok: false, webpki: true, reason: "certificate not valid" };
    r.advance(61_000);
    await r.policies.lookup("example.test");
    await r.settle();
    expect((await r.policies.lookup("example.test")).policy?.mode).toBe("enforce");
    expect(r.failures).toEqual([{ domain: "example.test", resultType: "sts-webpki-invalid" }]);
    r.advance(3600_000);
    expect((await r.policies.lookup("example.test")).policy).toBeUndefined();
  });

  it("fetches again ahead of expiry even when the id is unchanged", async () => {
    const r = rig({ id: "1", text: policyText("enforce", 4000) });
    await r.policies.lookup("example.test");
    r.advance(3100_000); // within a quarter of max_age of the end
    await r.policies.lookup("example.test");
    await r.settle();
    expect(r.fetchPolicy).toHaveBeenCalledTimes(2);
    r.advance(3000_000); // past the first fetch's expiry: the refreshed policy holds
    expect((await r.policies.lookup("example.test")).policy?.mode).toBe("enforce");
  });

  it("a first fetch that fails or an invalid policy: no policy, and the failure reported for TLS-RPT", async () => {
    const r = rig({ id: "1" });
    expect(await r.policies.lookup("example.test")).toEqual({ policy: undefined, failure: { resultType: "sts-policy-fetch-error", reason: "HTTP 404" } });
    const bad = rig({ id: "1", text: "version: STSv1\nmode: sometimes\n" });
    expect((await bad.policies.lookup("example.test")).failure?.resultType).toBe("sts-policy-invalid");
    expect(bad.failures.map((f) => f.resultType)).toEqual(["sts-policy-invalid"]);
  });

  it("mode none is no policy", async () => {
    const r = rig({ id: "1", text: "version: STSv1\nmode: none\nmax_age: 86400\n" });
    expect((await r.policies.lookup("example.test")).policy).toBeUndefined();
  });

  it("keeps at most maxDomains domains", async () => {
    const r = rig({});
    const policies = createStsPolicies({ resolveTxt: r.resolveTxt, fetchPolicy: r.fetchPolicy, maxDomains: 10 });
    for (let i = 0; i < 25; i++) await policies.lookup(`d${i}.test`);
    expect(policies.size()).toBe(10);
  });
});

describe("policies kept across a restart (the store)", () => {
  const saved = new Map<string, { id: string; text: string; expiresAt: number }>();
  const store = {
    load: async (domain: string) => saved.get(domain),
    save: async (domain: string, p: { id: string; text: string; expiresAt: number }) => void saved.set(domain, p),
  };

  it("a fetched policy is saved; a new process whose fetch is blocked and TXT stripped still enforces it", async () => {
    const first = rig({ id: "1", text: policyText("enforce", 86400) });
    const policies = createStsPolicies({ resolveTxt: first.resolveTxt, fetchPolicy: first.fetchPolicy, store });
    expect((await policies.lookup("example.test")).policy?.mode).toBe("enforce");
    await first.settle();
    expect(saved.get("example.test")).toMatchObject({ id: "1", text: policyText("enforce", 86400) });

    // The next process: the attacker strips the record and blocks the fetch.
    const later = rig({ id: undefined, text: { ok: false, webpki: false, reason: "blocked" } });
    const restarted = createStsPolicies({ resolveTxt: later.resolveTxt, fetchPolicy: later.fetchPolicy, store });
    expect((await restarted.lookup("example.test")).policy).toMatchObject({ mode: "enforce", mx: ["mx.example.test"] });
    expect(later.fetchPolicy).not.toHaveBeenCalled();
  });

  it("the same record id serves the stored policy without a fetch; an expired one is not used", async () => {
    const same = rig({ id: "1", text: policyText("testing", 86400) });
    const restarted = createStsPolicies({ resolveTxt: same.resolveTxt, fetchPolicy: same.fetchPolicy, store });
    expect((await restarted.lookup("example.test")).policy?.mode).toBe("enforce");
    expect(same.fetchPolicy).not.toHaveBeenCalled();

    saved.set("old.test", { id: "1", text: policyText("enforce", 60), expiresAt: Date.now() - 1 });
    const none = rig({});
    expect((await createStsPolicies({ resolveTxt: none.resolveTxt, fetchPolicy: none.fetchPolicy, store }).lookup("old.test")).policy).toBeUndefined();
  });

  it("a store that fails loses only the persistence", async () => {
    const r = rig({ id: "1", text: policyText("enforce", 86400) });
    const broken = { load: () => Promise.reject(new Error("database down")), save: () => Promise.reject(new Error("database down")) };
    expect((await createStsPolicies({ resolveTxt: r.resolveTxt, fetchPolicy: r.fetchPolicy, store: broken }).lookup("example.test")).policy?.mode).toBe("enforce");
  });
});
