import { describe, expect, it } from "vitest";
import type { CheckStatus, HealthCheckName } from "@/lib/contract/domains";
import { readinessVerdict, type ReadinessInput } from "./readiness";

const ALL: HealthCheckName[] = ["verification", "dkim", "spf", "dmarc", "alignment", "return-path-mx", "ptr"];
const domain = (name: string, statuses: Partial<Record<HealthCheckName, CheckStatus>> = {}, status: "pending" | "verified" = "verified") => ({
  Domain: name,
  Status: status,
  Checks: ALL.map((Check) => ({ Check, Status: statuses[Check] ?? "pass", Detail: `${Check} found ${statuses[Check] ?? "pass"}`, Fix: null })),
});

const ready: ReadinessInput = {
  domains: [domain("mail.example.com")],
  complaints: { complained: 0, delivered: 5000 },
  transport: { mode: "mx" },
  oneClickUnsubscribe: true,
  publicUrl: "https://mail.example.com",
};
const line = (input: ReadinessInput, id: string) => readinessVerdict(input).lines.find((l) => l.id === id)!;

describe("readinessVerdict", () => {
  it("passes every rule for an authenticated domain, a low spam rate, HTTPS one-click links and direct TLS delivery", () => {
    const v = readinessVerdict(ready);
    expect(v.lines.map((l) => [l.id, l.status])).toEqual([
      ["spf", "pass"],
      ["dkim", "pass"],
      ["dmarc", "pass"],
      ["unsubscribe", "pass"],
      ["spam-rate", "pass"],
      ["ptr", "pass"],
      ["tls", "pass"],
    ]);
    expect(v.status).toBe("pass");
  });

  it("fails the authentication rules without a verified domain, whatever a pending one's checks say", () => {
    const v = readinessVerdict({ ...ready, domains: [domain("new.example.com", {}, "pending")] });
    expect(v.status).toBe("fail");
    expect(line({ ...ready, domains: [] }, "spf")).toMatchObject({ status: "fail", why: expect.stringContaining("No verified sender domain") });
  });

  it("takes the worst domain's check and names the domain with what its check found", () => {
    const input = { ...ready, domains: [domain("a.example.com"), domain("b.example.com", { alignment: "fail" }), domain("c.example.com", { dmarc: "warn" })] };
    const dmarc = line(input, "dmarc");
    expect(dmarc.status).toBe("fail");
    expect(dmarc.why).toBe("b.example.com: alignment found fail · c.example.com: dmarc found warn");
    expect(line(input, "spf").status).toBe("pass");
    expect(readinessVerdict(input).status).toBe("fail");
  });

  it("warns for a verified domain whose checks have not run", () => {
    const input = { ...ready, domains: [{ Domain: "x.example.com", Status: "verified" as const, Checks: [] }] };
    expect(line(input, "ptr")).toMatchObject({ status: "warn", why: "x.example.com: not checked yet" });
    const partial = { ...ready, domains: [{ ...domain("y.example.com"), Checks: domain("y.example.com").Checks.filter((c) => c.Check !== "alignment") }] };
    expect(line(partial, "dmarc")).toMatchObject({ status: "warn", why: "y.example.com: no dmarc or alignment check in its last checks" });
  });

  it("judges the spam rate against 0.1% and 0.3%, and warns when nothing was delivered", () => {
    const rate = (complained: number, delivered: number) => line({ ...ready, complaints: { complained, delivered } }, "spam-rate");
    expect(rate(9, 10_000).status).toBe("pass");
    expect(rate(10, 10_000)).toMatchObject({ status: "warn", why: expect.stringContaining("0.1%") });
    expect(rate(30, 10_000)).toMatchObject({ status: "fail", why: expect.stringMatching(/^0\.3% \(30 complaints of 10,000 delivered/) });
    expect(rate(60, 480)).toMatchObject({ status: "fail", why: expect.stringContaining("12.5%") });
    expect(rate(0, 0)).toMatchObject({ status: "warn", why: expect.stringContaining("Nothing delivered") });
  });

  it("warns when the one-click link is not HTTPS, and fails without the header", () => {
    expect(line({ ...ready, publicUrl: "http://localhost:3000" }, "unsubscribe")).toMatchObject({ status: "warn", why: expect.stringContaining("http://localhost:3000") });
    expect(line({ ...ready, oneClickUnsubscribe: false }, "unsubscribe").status).toBe("fail");
  });

  it("passes TLS for direct delivery and an smtps relay, warns for a STARTTLS-if-offered relay and the sandbox", () => {
    expect(line({ ...ready, transport: { mode: "relay", relayScheme: "smtps:" } }, "tls").status).toBe("pass");
    expect(line({ ...ready, transport: { mode: "relay", relayScheme: "smtp:" } }, "tls").status).toBe("warn");
    expect(line({ ...ready, transport: { mode: "sandbox" } }, "tls")).toMatchObject({ status: "warn", why: expect.stringContaining("Sandbox") });
  });

  it("is a warning overall when the worst line is a warning", () => {
    expect(readinessVerdict({ ...ready, transport: { mode: "sandbox" } }).status).toBe("warn");
  });
});
