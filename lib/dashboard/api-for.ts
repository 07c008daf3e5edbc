import "server-only";
import type { ApiClient } from "../api-client/client";
import type { Area } from "../auth/roles";
import type { AccountAccess } from "./decide";
import { apiClientFor } from "./api";
import { assertArea } from "./guard";

/** The public API as the account of `access`, for a page of `area`. */
export async function apiFor(access: AccountAccess, area: Area): Promise<ApiClient> {
  assertArea(access, area);
  return apiClientFor(access.account.accountId);
}
