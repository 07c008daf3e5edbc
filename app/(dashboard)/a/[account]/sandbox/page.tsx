import type { Metadata } from "next";
import Link from "next/link";
import { Alert, EmptyState } from "@/components/ui/alert";
import { buttonClass } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Table, Td, Th } from "@/components/ui/table";
import { requireAccess } from "@/lib/dashboard/access";
import { instanceInfo } from "@/lib/dashboard/instance";
import { listSandbox } from "@/lib/dashboard/sandbox";

export const metadata: Metadata = { title: "Sandbox inbox" };
export const dynamic = "force-dynamic";

const PAGE_SIZE = 50;

export default async function SandboxPage({
  params: route,
  searchParams,
}: {
  params: Promise<{ account: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { account } = await route;
  const base = `/a/${account}`;
  const params = await searchParams;
  const q = typeof params.q === "string" ? params.q.trim().slice(0, 200) : "";
  const page = Math.max(1, Math.min(10_000, Number.parseInt(typeof params.page === "string" ? params.page : "1", 10) || 1));
  const qs = (p: number) => `${base}/sandbox?${new URLSearchParams({ ...(q && { q }), ...(p > 1 && { page: String(p) }) })}`;
  const access = await requireAccess(account, "sandbox", { returnTo: qs(page) });
  const isSandbox = instanceInfo().sandbox;
  const list = await listSandbox(access, { search: q || undefined, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  const pages = Math.max(1, Math.ceil(list.total / PAGE_SIZE));
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Sandbox inbox</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Every message of this account the sandbox MX received, newest first. Opening one, following its links, unsubscribing and reporting it as spam
          produce the same events as a real recipient would.
        </p>
      </div>
      {!isSandbox && (
        <Alert tone="warning" title="The sandbox transport is off">
          MAILROOM_DELIVERY is not <code>sandbox</code>: new messages go to real mail servers and are not captured here.
          Earlier captures are kept until the sandbox retention removes them.
        </Alert>
      )}
      <form role="search" aria-label="Search the sandbox inbox" className="flex flex-wrap gap-2" action={`${base}/sandbox`}>
        <label htmlFor="sandbox-q" className="sr-only">
          Search subject, sender, recipient or MessageID
        </label>
        <Input id="sandbox-q" name="q" type="search" defaultValue={q} placeholder="Subject, sender, recipient or MessageID" className="max-w-md" />
        <button type="submit" className={buttonClass("secondary")}>
          Search
        </button>
        {q && (
          <Link href={`${base}/sandbox`} className={buttonClass("ghost")}>
            Clear
          </Link>
        )}
      </form>
      <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="sandbox-total">
        {list.total.toLocaleString("en-US")} {list.total === 1 ? "message" : "messages"}
        {q && <> matching “{q}”</>}
      </p>
      <Card>
        {list.items.length === 0 ? (
          <EmptyState title={q ? "No captured message matches" : "The sandbox inbox is empty"}>
            <p>{q ? "Try a shorter search." : "Send a message (Compose, or POST /api/v1/email) and it appears here within seconds."}</p>
          </EmptyState>
        ) : (
          <Table aria-label="Captured messages">
            <thead>
              <tr>
                <Th>Received (UTC)</Th>
                <Th>To</Th>
                <Th>Subject</Th>
                <Th className="hidden md:table-cell">From (envelope)</Th>
                <Th className="hidden lg:table-cell">Size</Th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((m) => (
                <tr key={m.id} className="hover:bg-slate-50 dark:hover:bg-slate-800/60" data-testid="sandbox-row">
                  <Td className="whitespace-nowrap font-mono text-xs">{m.receivedAt.replace("T", " ").slice(0, 19)}</Td>
                  <Td className="break-all">{m.rcptTo.join(", ")}</Td>
                  <Td>
                    <Link href={`${base}/sandbox/${m.id}`} prefetch={false} className="font-medium text-brand-700 underline-offset-2 hover:underline dark:text-brand-100">
                      {m.subject || "(no subject)"}
                    </Link>
                  </Td>
                  <Td className="hidden break-all text-xs md:table-cell">{m.mailFrom}</Td>
                  <Td className="hidden whitespace-nowrap text-xs lg:table-cell">{(m.size / 1024).toFixed(1)} KB</Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>
      {pages > 1 && (
        <nav aria-label="Pages" className="flex items-center gap-2 text-sm">
          {page > 1 && (
            <Link href={qs(page - 1)} className={buttonClass("secondary", "sm")}>
              Newer
            </Link>
          )}
          <span>
            Page {page} of {pages}
          </span>
          {page < pages && (
            <Link href={qs(page + 1)} className={buttonClass("secondary", "sm")}>
              Older
            </Link>
          )}
        </nav>
      )}
    </div>
  );
}
