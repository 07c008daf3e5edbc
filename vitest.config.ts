import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // `server-only` throws outside Next's bundler (docs/stack.md §4).
  "server-only": path.resolve(import.meta.dirname, "test/support/server-only-shim.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "cli/**/*.test.ts", "components/**/*.test.ts", "app/**/*.test.ts", "scripts/**/*.test.ts", "bench/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/support/global-setup.ts"],
          testTimeout: 60_000,
          // No per-test retry: scripts/test-all.sh runs a failed file once more on a fresh database.
          hookTimeout: 120_000,
          // Files run in parallel, each on its own database cloned from a template.
          pool: "forks",
          maxWorkers: 2,
        },
      },
    ],
  },
});
