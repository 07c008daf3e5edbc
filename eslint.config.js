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
);
