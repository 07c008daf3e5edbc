import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

/**
 * The submission server's certificate: MAILROOM_SUBMISSION_TLS_CERT/_KEY
 * (PEM files), else a self-signed one generated once with the `openssl`
 * command (Node's crypto cannot make X.509 certificates; docs/adr/0701) and
 * kept in the data directory, so clients that pin it keep working across
 * restarts. Undefined when there is neither (no openssl): the server then
 * runs without TLS, and AUTH is only allowed from loopback.
 */

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  /** Where it came from, for the log and the dashboard. */
  source: "configured" | "self-signed";
}

const run = promisify(execFile);

export async function loadTlsMaterial(options: { certFile?: string; keyFile?: string; dataDir: string; hostname: string }): Promise<TlsMaterial | undefined> {
  if (options.certFile && options.keyFile) {
    return { cert: readFileSync(options.certFile), key: readFileSync(options.keyFile), source: "configured" };
  }
  const dir = path.join(options.dataDir, "submission-tls");
  const certFile = path.join(dir, "cert.pem");
  const keyFile = path.join(dir, "key.pem");
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The host name goes into argv (no shell); it comes from configuration, not from a client.
    const cn = options.hostname.replace(/[^A-Za-z0-9.-]/g, "") || "localhost";
    const san = [`DNS:${cn}`, ...(cn === "localhost" ? [] : ["DNS:localhost"]), "IP:127.0.0.1"].join(",");
    try {
      await run(
        "openssl",
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "3650", "-subj", `/CN=${cn}`, "-addext", `subjectAltName=${san}`, "-keyout", keyFile, "-out", certFile],
        { timeout: 30_000 },
      );
    } catch {
      return undefined;
    }
  }
  return { cert: readFileSync(certFile), key: readFileSync(keyFile), source: "self-signed" };
}
