/**
 * What makes one machine slower than another for mail work, printed beside
 * each benchmark pair (bench/e2e.ts --against): the time of one RSA-2048
 * signature (what DKIM costs per copy) and of one page fault (what a fresh
 * allocation costs), so that a slow machine is seen as one.
 */
import { generateKeyPairSync, sign } from "node:crypto";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median ms of an RSA-2048 SHA-256 signature of a 32-byte digest's worth of data, over 200. */
export function rsaSignatureMs(): number {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const data = Buffer.alloc(32, 1);
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t = process.hrtime.bigint();
    sign("sha256", data, privateKey);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return median(times);
}

/** Median µs to first touch a 4 KB page of fresh memory (a minor fault), over 5 rounds of 64 MB. */
export function pageFaultMicros(): number {
  const page = 4096;
  const bytes = 64 * 1024 * 1024;
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const b = Buffer.allocUnsafeSlow(bytes);
    const t = process.hrtime.bigint();
    for (let i = 0; i < bytes; i += page) b[i] = 1;
    rounds.push(Number(process.hrtime.bigint() - t) / 1e3 / (bytes / page));
  }
  return median(rounds);
}

export function machineFacts(): string {
  return `machine: one RSA-2048 signature ${rsaSignatureMs().toFixed(3)} ms, one page fault ${pageFaultMicros().toFixed(2)} µs`;
}
