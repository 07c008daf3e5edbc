import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

// Layering rules of docs/ARCHITECTURE.md, held by no-restricted-imports.
const noFrameworks = {
  patterns: [
    { group: ["next", "next/*", "react", "react-dom", "next-auth", "next-auth/*"], message: "lib/domain is framework-free" },
    { group: ["hono", "hono/*", "@hono/*"], message: "lib/domain is framework-free" },
    { group: ["**/app/**", "@/app/*"], message: "lib/domain never imports app/" },
  ],
};

// Our modules are imported statically: the composition root pairs a job with its worker (docs/adr/0050), so no
// module loads another of ours by import(). (dependency-cruiser cruises dynamic imports too, .dependency-cruiser.mjs.)
const noLazyImportOfOurs = {
  selector: "ImportExpression[source.value=/^[.]{1,2}[/]/]",
  message: "import our modules statically: a job's worker is paired with it by lib/workers/start-workers.ts, not loaded by import() (docs/adr/0050)",
};

// A process's caches and memos live on its AppContext (lib/context.ts), never in module state (docs/adr/0014):
// an empty Map or Set, a `let` or `var`, or a pool, lanes, limiter or cache object at a module's top level is
// one. Constants (a Set built from a list) are fine. What must be one per process (the worker pools, whose
// threads are the process's CPU, and the lines in front of them; a memo of loaded code) is exempt line by line,
// each saying why.
const topLevel = ":matches(Program, Program > ExportNamedDeclaration) > VariableDeclaration";
const moduleState = [
  {
    selector: `${topLevel} > VariableDeclarator > NewExpression[callee.name=/^(Map|Set|WeakMap|WeakSet)$/][arguments.length=0]`,
    message: "module-level state: keep it on AppContext (created in buildAppContext, lib/process-context.ts)",
  },
  {
    selector: `${topLevel}[kind=/^(let|var)$/]`,
    message: "module-level state: keep it on AppContext (buildAppContext, lib/process-context.ts); one that must be per process is exempt on its line, saying why (docs/adr/0014)",
  },
  {
    selector: `${topLevel} > VariableDeclarator > NewExpression[callee.name=/(Pool|Lanes|Limiter|Cache|Queue|ExpiringMap)$/]`,
    message: "module-level state: keep it on AppContext (buildAppContext, lib/process-context.ts); one that must be per process is exempt on its line, saying why (docs/adr/0014)",
  },
];

// Every job goes through lib/queue's typed enqueue (enqueue, enqueueMany, enqueueOnce, scheduleQueue), which
// checks the payload against its queue's schema: no pg-boss send, insert or schedule elsewhere (docs/ARCHITECTURE.md).
const houseRules = [
  {
    selector: "CallExpression[callee.property.name=/^(send|sendAfter|insert|schedule|publish)$/][callee.object.name='boss']",
    message: "enqueue jobs through lib/queue/boss.ts (enqueue, enqueueMany, enqueueOnce, scheduleQueue)",
  },
  {
    selector: "CallExpression[callee.property.name=/^(send|sendAfter|insert|schedule|publish)$/][callee.object.property.name='boss']",
    message: "enqueue jobs through lib/queue/boss.ts (enqueue, enqueueMany, enqueueOnce, scheduleQueue)",
  },
  ...moduleState,
];

export default tseslint.config(
  { ignores: [".tmp-*", "**/.*-tmp.ts", "node_modules", ".next", ".data", "next-env.d.ts", "test-results", "playwright-report", "e2e/artifacts"] },
  js.configs.recommended,
  { files: ["**/*.mjs", "**/*.js"], languageOptions: { globals: globals.node } },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    },
  },
  {
    files: ["lib/contract/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["../*", "@/*", "!./*"], message: "lib/contract imports only zod and itself" }] },
      ],
    },
  },
  { files: ["lib/domain/**/*.ts"], rules: { "no-restricted-imports": ["error", noFrameworks] } },
  {
    files: ["lib/api/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/storage/schema", "**/storage/schema.ts"], message: "API handlers call lib/domain, not storage" }] },
      ],
    },
  },
  // The dashboard reads and writes only through lib/dashboard (ADR 0510).
  {
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "@/lib/api-client", message: "the dashboard reaches the API through lib/dashboard (the account's own client)" },
            { name: "@/lib/api-client/dashboard-account", message: "the account is in the URL: use lib/dashboard" },
          ],
          patterns: [
            {
              group: ["@/lib/domain/*", "@/lib/storage/*", "@/lib/delivery/*", "@/lib/inbound/*", "@/lib/runtime", "**/lib/domain/*", "**/lib/storage/*", "**/lib/delivery/*", "**/lib/inbound/*", "**/lib/runtime"],
              message: "app/ and components/ call lib/dashboard, never the domain, storage, delivery, inbound or runtime modules",
            },
          ],
        },
      ],
    },
  },
  // A later no-restricted-syntax replaces an earlier one: each block below lists all of its selectors.
  {
    files: ["lib/**/*.ts", "cli/**/*.ts", "server.ts"],
    ignores: ["lib/queue/**", "**/*.test.ts"],
    rules: {
      "no-restricted-syntax": ["error", ...houseRules, noLazyImportOfOurs],
    },
  },
  { files: ["lib/queue/**/*.ts"], ignores: ["**/*.test.ts"], rules: { "no-restricted-syntax": ["error", ...moduleState, noLazyImportOfOurs] } },
);
