/** How each account's dashboard API key is sealed (lib/domain/staff/bootstrap.ts) and resealed (dashboard-auth-secret.ts). */
export const DASHBOARD_KEY_LOCK_ID = 727_201;
export const DASHBOARD_KEY_PURPOSE = "dashboard-api-key";
