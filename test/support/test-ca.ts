import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/**
 * A certificate authority for tests, made with the `openssl` command (Node's
 * crypto cannot issue X.509 certificates): its certificates are what a
 * WebPKI check accepts once the CA is trusted (MAILROOM_TLS_EXTRA_CA_FILE),
 * and it issues the bad ones too: expired, for another name, or signed by
 * nobody trusted (`selfSigned`). EC P-256 keys: fast to make.
 */

export interface IssuedCertificate {
  key: Buffer;
  /** The leaf, then the CA (the chain a server presents). */
  cert: Buffer;
  /** The leaf alone, DER (for TLSA digests). */
  leafDer: Buffer;
}

export interface TestCa {
  /** The CA certificate (PEM) and its file, to trust. */
  caPem: Buffer;
  caFile: string;
  caDer: Buffer;
  issue(names: string[], options?: { expired?: boolean; selfSigned?: boolean }): Promise<IssuedCertificate>;
}

const run = promisify(execFile);
const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

const pemToDer = (pem: string): Buffer => {
  const body = pem.split("-----BEGIN CERTIFICATE-----")[1]!.split("-----END CERTIFICATE-----")[0]!;
  return Buffer.from(body.replace(/\s+/g, ""), "base64");
};

export async function createTestCa(): Promise<TestCa> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mailroom-test-ca-"));
  const caKey = path.join(dir, "ca.key");
  const caFile = path.join(dir, "ca.pem");
  await run("openssl", ["req", "-x509", ...EC, "-sha256", "-days", "30", "-subj", "/CN=Mailroom Test CA", "-keyout", caKey, "-out", caFile]);
  writeFileSync(path.join(dir, "index.txt"), "");
  writeFileSync(
    path.join(dir, "ca.cnf"),
    [
      "[ca]",
      "default_ca = test",
      "[test]",
      `dir = ${dir}`,
      "database = $dir/index.txt",
      "new_certs_dir = $dir",
      "rand_serial = yes",
      "default_md = sha256",
      "policy = anything",
      "unique_subject = no",
      "copy_extensions = copy",
      "[anything]",
      "commonName = supplied",
      "",
    ].join("\n"),
  );
  const caPem = readFileSync(caFile);
  let n = 0;
  return {
    caPem,
    caFile,
    caDer: pemToDer(caPem.toString()),
    async issue(names, options = {}) {
      const base = path.join(dir, `leaf${++n}`);
      const san = `subjectAltName=${names.map((name) => `DNS:${name}`).join(",")}`;
      if (options.selfSigned) {
        await run("openssl", ["req", "-x509", ...EC, "-sha256", "-days", "30", "-subj", `/CN=${names[0]}`, "-addext", san, "-keyout", `${base}.key`, "-out", `${base}.pem`]);
      } else {
        await run("openssl", ["req", "-new", ...EC, "-subj", `/CN=${names[0]}`, "-addext", san, "-keyout", `${base}.key`, "-out", `${base}.csr`]);
        const dates = options.expired ? ["-startdate", "20200101000000Z", "-enddate", "20200201000000Z"] : ["-days", "30"];
        await run("openssl", ["ca", "-batch", "-config", path.join(dir, "ca.cnf"), "-keyfile", caKey, "-cert", caFile, "-in", `${base}.csr`, "-out", `${base}.pem`, "-notext", ...dates]);
      }
      const leaf = readFileSync(`${base}.pem`);
      return { key: readFileSync(`${base}.key`), cert: options.selfSigned ? leaf : Buffer.concat([leaf, caPem]), leafDer: pemToDer(leaf.toString()) };
    },
  };
}
