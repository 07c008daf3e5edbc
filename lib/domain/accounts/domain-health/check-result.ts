import type { StoredHealthCheck } from "../../../storage/schema";

export type HealthCheck = StoredHealthCheck;
export type RecordFix = NonNullable<HealthCheck["fix"]>;

export const pass = (check: HealthCheck["check"], detail: string): HealthCheck => ({ check, status: "pass", detail, fix: null });
export const warn = (check: HealthCheck["check"], detail: string, fix: RecordFix | null = null): HealthCheck => ({ check, status: "warn", detail, fix });
export const fail = (check: HealthCheck["check"], detail: string, fix: RecordFix | null = null): HealthCheck => ({ check, status: "fail", detail, fix });
