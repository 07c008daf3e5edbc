#!/usr/bin/env node
// The `mailroom` command: runs cli/main.ts through tsx (Node 20 cannot run
// TypeScript itself). Works from any directory inside the checkout: the
// embedded database defaults to <checkout>/.data, where `npm start` keeps it.
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.env.MAILROOM_DATA_DIR ??= path.join(root, ".data");
register({ tsconfig: path.join(root, "tsconfig.json") });

const { main } = await import("../cli/main.ts");
const code = await main(process.argv);
// Exit now: the pg pool and pg-boss keep no handles we still need, and the
// worker command returns only once it has stopped.
process.exit(code);
