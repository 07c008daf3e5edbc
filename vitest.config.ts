import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // `server-only` throws outside Next's bundler (STACK.md).
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
          include: ["lib/**/*.test.ts", "cli/**/*.test.ts", "components/**/*.test.ts", "app/**/*.test.ts"],
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
          // Real processes, real servers and wall-clock waits on a 2-core machine: in CI a
          // test that fails is run once more before it counts (a genuine defect fails twice).
          retry: process.env.CI ? 1 : 0,
          hookTimeout: 120_000,
          // Files run in parallel, each on its own database cloned from a template.
          pool: "forks",
          maxWorkers: 2,
        },
      },
    ],
  },
});
