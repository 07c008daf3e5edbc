import { writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { startFakeDns, type FakeDns } from "../test/support/fake-dns";
import { createTestCa } from "../test/support/test-ca";

/**
 * bench:e2e --mx: direct-MX delivery on a fake internet, to compare the TLS
 * policies' cost (docs/adr/0326). The recipients' domain (example.org) has
 * its MX on the sink (127.0.0.1), which offers STARTTLS with a certificate of
 * a test CA the app trusts (MAILROOM_TLS_EXTRA_CA_FILE); with `mtaSts` the
 * domain publishes an `enforce` policy served over HTTPS from this process,
 * so every copy is checked against it; without, MTA-STS is off and the same
 * sessions are opportunistic. Same TLS handshakes either way: the difference
 * is the policy lookup and the certificate check.
 */
export interface MxRig {
  /** For the sink process: its certificate and key files. */
  sinkEnv: Record<string, string>;
  /** For the app, once the sink's port is known. */
  appEnv(sinkPort: number): Record<string, string>;
  stop(): Promise<void>;
}

const DOMAIN = "example.org";
const MX = "mx.example.org";

export async function startMxRig(dir: string, mtaSts: boolean): Promise<MxRig> {
  const ca = await createTestCa();
  const mx = await ca.issue([MX]);
  const policyCert = await ca.issue([`mta-sts.${DOMAIN}`]);
  const keyFile = path.join(dir, "mx.key");
  const certFile = path.join(dir, "mx.pem");
  writeFileSync(keyFile, mx.key);
  writeFileSync(certFile, mx.cert);
  const dns: FakeDns = await startFakeDns({ ttl: 3600 });
  dns.mx(DOMAIN, [{ name: MX, address: "127.0.0.1" }]);
  const policy = ["version: STSv1", "mode: enforce", `mx: ${MX}`, "max_age: 86400", ""].join("\r\n");
  const server = https.createServer({ key: policyCert.key, cert: policyCert.cert }, (req, res) => {
    if (req.url !== "/.well-known/mta-sts.txt") return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/plain" }).end(policy);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  if (mtaSts) {
    dns.set(`_mta-sts.${DOMAIN}`, { TXT: ["v=STSv1; id=bench1"] });
    dns.set(`mta-sts.${DOMAIN}`, { A: ["127.0.0.1"] });
  }
  return {
    sinkEnv: { BENCH_SINK_TLS_KEY: keyFile, BENCH_SINK_TLS_CERT: certFile },
    appEnv: (sinkPort) => ({
      MAILROOM_DELIVERY: "mx",
      MAILROOM_ALLOW_PRIVATE_MX: "true",
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_MX_PORT: String(sinkPort),
      MAILROOM_TLS_EXTRA_CA_FILE: ca.caFile,
      MAILROOM_MTA_STS: mtaSts ? "true" : "false",
      MAILROOM_MTA_STS_PORT: String((server.address() as AddressInfo).port),
    }),
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await dns.stop();
    },
  };
}
