import { headers } from "next/headers";
import type { ReactNode } from "react";
import { requireDashboardUser } from "@/lib/dashboard/access";

/** Every dashboard page needs a signed-in staff member; the frame comes from the account's layout (or the page's own). */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  await requireDashboardUser((await headers()).get("x-mailroom-path") ?? undefined);
  return children;
}
