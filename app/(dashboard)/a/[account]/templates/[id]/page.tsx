import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Alert } from "@/components/ui/alert";
import { Card, CardHeader } from "@/components/ui/card";
import { describeApiError } from "@/lib/dashboard/public-api";
import { canAccess } from "@/lib/auth/roles";
import type { TemplateDetail, TemplateVersion } from "@/lib/contract/templates";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import { instanceInfo } from "@/lib/dashboard/instance";
import { TemplateEditor } from "../_components/template-editor";

export const metadata: Metadata = { title: "Template" };
export const dynamic = "force-dynamic";

function VersionColumn({ title, v }: { title: string; v: TemplateVersion }) {
  return (
    <div className="flex min-w-0 flex-col gap-2" data-testid={`version-${v.Version}`}>
      <h3 className="font-semibold">{title}</h3>
      <p className="text-sm">
        <span className="text-slate-600 dark:text-slate-400">Subject: </span>
        {v.Subject}
      </p>
      {v.HTMLContent !== undefined && <pre className="max-h-72 overflow-auto whitespace-pre-wrap rounded-md bg-slate-100 p-2 text-xs dark:bg-slate-800">{v.HTMLContent}</pre>}
      {v.PlainContent !== undefined && <pre className="max-h-48 overflow-auto whitespace-pre-wrap rounded-md bg-slate-100 p-2 text-xs dark:bg-slate-800">{v.PlainContent}</pre>}
    </div>
  );
}

export default async function TemplatePage({ params, searchParams }: { params: Promise<{ account: string; id: string }>; searchParams: Promise<{ version?: string }> }) {
  const { account, id: rawId } = await params;
  const { version: rawVersion } = await searchParams;
  const access = await requireAccess(account, "templates", { returnTo: `/a/${account}/templates/${encodeURIComponent(rawId)}` });
  const id = /^[1-9][0-9]{0,14}$/.test(rawId) ? Number(rawId) : undefined;
  if (id === undefined) notFound();
  const compareTo = rawVersion && /^[1-9][0-9]{0,9}$/.test(rawVersion) ? Number(rawVersion) : undefined;
  let detail: TemplateDetail | undefined;
  let compared: TemplateVersion | undefined;
  let error: string | undefined;
  try {
    const client = await apiFor(access, "templates");
    detail = await client.getTemplate(id);
    if (detail && compareTo !== undefined && compareTo !== detail.Version) compared = await client.getTemplateVersion(id, compareTo);
  } catch (err) {
    error = describeApiError(err);
  }
  if (!error && !detail) notFound();
  const { sandbox } = instanceInfo();
  return (
    <div className="flex flex-col gap-4">
      <div>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <Link className="underline" href={`${access.base}/templates`}>
            Templates
          </Link>{" "}
          / TemplateID {id}
        </p>
        <h1 className="text-2xl font-bold tracking-tight" data-testid="template-name">
          {detail?.Name ?? `Template ${id}`}
        </h1>
      </div>
      {error && <Alert tone="error" title="The template could not be loaded">{error}</Alert>}
      {detail && (
        <>
          {/* Keyed by template, not version: a save's refresh keeps the editor (and its "Saved as version N" notice) mounted. */}
          <TemplateEditor
            key={id}
            id={id}
            version={detail.Version}
            initial={{ Name: detail.Name, Subject: detail.Subject, HTMLContent: detail.HTMLContent ?? "", PlainContent: detail.PlainContent ?? "" }}
            canOpenMessages={canAccess(access.role, "messages")}
            sandbox={sandbox}
          />
          <Card>
            <CardHeader title={`Versions (${detail.Versions.length})`} description="Choose one to see it beside the latest." />
            <ul className="divide-y divide-slate-200 text-sm dark:divide-slate-700" data-testid="template-versions">
              {detail.Versions.map((v) => (
                <li key={v.Version} className="flex flex-wrap items-center gap-3 px-4 py-2">
                  <span className="w-20 font-mono">v{v.Version}</span>
                  <span className="min-w-0 flex-1 truncate">{v.Subject}</span>
                  <span className="text-slate-600 dark:text-slate-400">{v.CreatedAt.replace("T", " ").slice(0, 19)} UTC</span>
                  {v.Version !== detail.Version && (
                    <Link className="underline" href={`${access.base}/templates/${id}?version=${v.Version}`}>
                      Compare
                    </Link>
                  )}
                </li>
              ))}
            </ul>
          </Card>
          {compared && (
            <Card>
              <CardHeader title={`Version ${compared.Version} beside version ${detail.Version}`} />
              <div className="grid grid-cols-1 gap-4 p-4 lg:grid-cols-2">
                <VersionColumn title={`Version ${compared.Version}`} v={compared} />
                <VersionColumn title={`Version ${detail.Version} (latest)`} v={detail} />
              </div>
            </Card>
          )}
        </>
      )}
    </div>
  );
}
