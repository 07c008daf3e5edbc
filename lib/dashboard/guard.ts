import "server-only";
import { forbidden } from "next/navigation";
import { canAccess, type Area } from "../auth/roles";
import type { AccountAccess } from "./decide";

/** Defence in depth: a function of an area refuses an access made for a role without it. */
export function assertArea(access: AccountAccess, area: Area): void {
  if (!canAccess(access.role, area)) forbidden();
}
