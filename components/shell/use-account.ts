"use client";

import { useParams } from "next/navigation";

/** The account of the URL (`/a/<account>/…`), for client components that call its server actions or link within it. */
export function useAccountId(): string {
  const params = useParams<{ account?: string }>();
  return typeof params.account === "string" ? params.account : "";
}

/** `/a/<account>`: the prefix of the account's pages. */
export function useAccountBase(): string {
  return `/a/${useAccountId()}`;
}
