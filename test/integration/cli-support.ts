import { execFile } from "node:child_process";
import path from "node:path";

/** Runs the real `mailroom` command as a child process (node bin/mailroom.mjs). */
export const CLI = path.resolve(import.meta.dirname, "../../bin/mailroom.mjs");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string | undefined>, cwd?: string): Promise<CliResult> {
  // A key given as undefined is removed (e.g. DATABASE_URL, to use the embedded server).
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "silent", ...env };
  for (const [k, v] of Object.entries(childEnv)) if (v === undefined) delete childEnv[k];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: childEnv, cwd, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs a `--json` command that must succeed and parses its output. */
export async function runCliJson<T = Record<string, unknown>>(args: string[], env: Record<string, string | undefined>): Promise<T> {
  const r = await runCli([...args, "--json"], env);
  if (r.code !== 0) throw new Error(`mailroom ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
