/**
 * OpenDKIM as Postfix's milter for `npm run bench:e2e -- --against postfix-dkim`
 * (bench/postfix-reference.ts): what a self-hosting sender runs to sign.
 * Debian's opendkim in signing mode (`Mode s`), one RSA-2048 key made here
 * with openssl, `relaxed/simple`, listening on a loopback port, in the
 * foreground so that its CPU is read from /proc (all threads: the process's
 * utime + stime). Its files live in a directory of its own under the
 * home directory: opendkim refuses a configuration or key on a path others
 * may write to, as /tmp is.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "../lib/storage/embedded";
import { untilListening } from "./until-listening";
import { readStat } from "../test/support/proc-stats";

const run = promisify(execFile);
export const OPENDKIM = "/usr/sbin/opendkim";
/** The domain smtp-source's From: header names (its -f), which the milter signs for. */
export const SIGNING_DOMAIN = "bench.example";

export interface Milter {
  /** For main.cf's smtpd_milters. */
  socket: string;
  cpuMs(): number;
  faults(): number;
  stop(): void;
}

export const opendkimMissing = (): string | undefined =>
  existsSync(OPENDKIM) ? undefined : `OpenDKIM is not installed (missing ${OPENDKIM}); on Debian: apt-get install opendkim`;

export async function startOpendkim(): Promise<Milter> {
  const dir = mkdtempSync(path.join(os.homedir(), ".mailroom-bench-opendkim-"));
  const key = path.join(dir, "dkim.key");
  await run("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key]);
  chmodSync(key, 0o600);
  const port = await freePort();
  const conf = path.join(dir, "opendkim.conf");
  writeFileSync(
    conf,
    [
      "Mode s",
      `Domain ${SIGNING_DOMAIN}`,
      "Selector bench",
      `KeyFile ${key}`,
      "Canonicalization relaxed/simple",
      "SignatureAlgorithm rsa-sha256",
      `Socket inet:${port}@127.0.0.1`,
      "Syslog no",
      "",
    ].join("\n"),
  );
  const proc: ChildProcess = spawn(OPENDKIM, ["-f", "-x", conf], { stdio: ["ignore", "ignore", "inherit"] });
  const stop = () => {
    proc.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await untilListening(port, 10_000, "opendkim");
  } catch (err) {
    stop();
    throw err;
  }
  return { socket: `inet:127.0.0.1:${port}`, cpuMs: () => readStat(proc.pid!)?.cpuMs ?? NaN, faults: () => readStat(proc.pid!)?.faults ?? NaN, stop };
}
