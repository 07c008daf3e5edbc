import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Command } from "commander";
import { createMcpServer, httpApiCall } from "../../lib/mcp/tools";
import { CliError } from "../output";
import type { CliApp } from "../runner";

/**
 * `mailroom mcp`: the MCP server on stdin/stdout, for an MCP client to spawn
 * (docs/contract.md §17.4, docs/adr/0900). Its tools call a Mailroom server's
 * API over HTTP with one key, so they can do what that key can, no more; it
 * opens no database. Runs until stdin closes (the client went away).
 */
export function registerMcp(program: Command, app: CliApp): void {
  program
    .command("mcp")
    .description("MCP server (stdio) whose tools call the API with MAILROOM_API_KEY; for assistants (see the README)")
    .option("--url <url>", "the Mailroom server (default: MAILROOM_API_URL, else MAILROOM_PUBLIC_URL)")
    .option("--key <key>", "the API key (default: MAILROOM_API_KEY; prefer the variable, a flag shows in the process list)")
    .action(async (opts: { url?: string; key?: string }) => {
      const config = app.config();
      const url = opts.url ?? config.dashboard.apiUrl ?? config.publicUrl;
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new CliError(`--url: "${url}" is not an http(s) URL`);
      const key = opts.key ?? config.dashboard.apiKey;
      if (!key) throw new CliError("No API key: set MAILROOM_API_KEY (or pass --key)");

      const server = createMcpServer(httpApiCall(url, key));
      const transport = new StdioServerTransport();
      const closed = new Promise<void>((resolve) => {
        transport.onclose = resolve;
        process.stdin.once("end", resolve);
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await server.connect(transport);
      await closed;
      await server.close();
    });
}
