// The import rules of docs/ARCHITECTURE.md ("Where things live"), checked by
// `npm run lint` (docs/adr/0010). Type-only imports count: a type import
// still ties one layer to another.

/**
 * What each part of lib/ may import of ours, besides itself and lib/logger.ts
 * (a leaf every layer may use). The table of docs/ARCHITECTURE.md, row for
 * row; anything else of ours is an error.
 */
const MAY_IMPORT = {
  "lib/contract": [],
  "lib/tracking": [],
  "lib/net": [],
  "lib/config.ts": ["lib/contract"],
  "lib/logger.ts": [],
  "lib/json-worker.ts": [],
  "lib/worker-pool.ts": [],
  "lib/read-bytes.ts": ["lib/json-worker.ts"],
  "lib/bytes-in-turns.ts": [],
  "lib/runtime.ts": ["lib/context.ts"],
  "lib/storage": ["lib/contract"],
  // The job definitions, data only: the composition root (lib/workers) pairs each with the worker of its feature
  // (docs/adr/0050); the worker's type takes the context as a parameter (job-worker.ts).
  "lib/jobs": ["lib/config.ts"],
  // The process's context names no layer above it (docs/adr/0050): the domain never imports it.
  "lib/context.ts": ["lib/config.ts", "lib/storage", "lib/domain", "lib/contract"],
  "lib/queue": ["lib/jobs", "lib/storage", "lib/contract"],
  "lib/domain": ["lib/contract", "lib/storage", "lib/jobs", "lib/queue", "lib/tracking"],
  "lib/delivery": ["lib/domain", "lib/storage", "lib/jobs", "lib/queue", "lib/tracking", "lib/net", "lib/contract", "lib/config.ts", "lib/metrics.ts", "lib/context.ts"],
  "lib/inbound": ["lib/domain", "lib/storage", "lib/tracking", "lib/contract", "lib/config.ts", "lib/context.ts"],
  "lib/webhooks": ["lib/domain", "lib/storage", "lib/jobs", "lib/queue", "lib/net", "lib/contract", "lib/config.ts", "lib/metrics.ts", "lib/context.ts"],
  "lib/dashboard": ["lib/auth", "lib/api-client", "lib/domain", "lib/inbound", "lib/webhooks", "lib/submission", "lib/delivery", "lib/contract", "lib/config.ts", "lib/runtime.ts", "lib/context.ts"],
  "lib/maintenance": ["lib/delivery", "lib/webhooks", "lib/domain", "lib/storage", "lib/jobs", "lib/queue", "lib/context.ts"],
  "lib/workers": ["lib/delivery", "lib/inbound", "lib/webhooks", "lib/maintenance", "lib/domain", "lib/jobs", "lib/queue", "lib/context.ts"],
  "lib/submission": ["lib/domain", "lib/inbound", "lib/contract", "lib/config.ts", "lib/context.ts"],
  "lib/http": ["lib/domain", "lib/storage", "lib/contract", "lib/config.ts", "lib/context.ts"],
  "lib/mcp": ["lib/contract"],
  "lib/api": ["lib/http", "lib/mcp", "lib/domain", "lib/storage", "lib/contract", "lib/tracking", "lib/webhooks", "lib/config.ts", "lib/context.ts", "lib/metrics.ts"],
  "lib/api-client": ["lib/domain", "lib/contract", "lib/config.ts", "lib/runtime.ts"],
  "lib/auth": ["lib/domain", "lib/contract", "lib/config.ts", "lib/runtime.ts", "lib/context.ts"],
  // The dashboard's pages reach data only through lib/dashboard (ADR 0510).
  app: ["components", "lib/dashboard", "lib/auth", "lib/contract", "lib/tracking"],
  components: ["lib/dashboard", "lib/auth", "lib/contract", "lib/tracking"],
};

const OURS = "^(lib|app|components|cli|bin|scripts|server\\.ts)(/|$)";
const asPath = (p) => (p.endsWith(".ts") ? `^${p.replaceAll(".", "\\.")}$` : `^${p}/`);

const mayImportRules = Object.entries(MAY_IMPORT).map(([from, allowed]) => ({
  name: `${from.replace(/^lib\//, "")}-may-import`,
  comment: `${from} may import only: ${allowed.join(", ") || "nothing of ours"} (docs/ARCHITECTURE.md).`,
  severity: "error",
  // A unit test beside a page may compare it with the layer it stands in for
  // (the compose draft against the API's validator, ADR 0013).
  from: from.startsWith("lib") ? { path: asPath(from) } : { path: asPath(from), pathNot: "\\.test\\.tsx?$" },
  to: { path: OURS, pathNot: [asPath(from), "^lib/logger\\.ts$", "^lib/json-worker\\.ts$", "^lib/worker-pool\\.ts$", "^lib/read-bytes\\.ts$", "^lib/bytes-in-turns\\.ts$", "^lib/with-timeout\\.ts$", ...allowed.map(asPath)] },
}));

const FRAMEWORKS = "^(node_modules/)?(next|react|react-dom|next-auth|hono|@hono/[^/]+)(/|$)";

export default {
  forbidden: [
    {
      name: "no-folder-cycle",
      comment: "Folders form layers: no folder of ours (lib/'s and their subfolders, app, components, cli) may reach itself through its imports, static, type-only or dynamic (docs/adr/0050).",
      severity: "error",
      scope: "folder",
      from: { path: "^(lib|app|components|cli)/" },
      to: { circular: true },
    },
    {
      name: "no-module-cycle",
      comment: "No module may reach itself through its imports.",
      severity: "error",
      from: { path: "^lib/" },
      to: { circular: true },
    },
    ...mayImportRules,
    {
      name: "domain-is-framework-free",
      comment: "lib/domain never imports Next, React, Auth.js or Hono.",
      severity: "error",
      from: { path: "^lib/domain/" },
      to: { path: FRAMEWORKS },
    },
    {
      name: "no-storage-schema-in-http",
      comment: "API handlers and the HTTP layer call lib/domain; they never touch the storage schema.",
      severity: "error",
      from: { path: "^lib/(api|http)/" },
      to: { path: "^lib/storage/schema\\.ts$" },
    },
    {
      name: "lib-never-imports-app",
      comment: "Nothing under lib/ imports the Next.js app or its components.",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(app|components)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Dynamic imports are cruised like static ones (docs/adr/0050): an import() is an edge between layers too,
    // and the rules above (the folder cycle first) hold it. ESLint refuses one of our modules by import() anyway.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
    cache: { folder: "node_modules/.cache/dependency-cruiser", strategy: "content" },
  },
};
