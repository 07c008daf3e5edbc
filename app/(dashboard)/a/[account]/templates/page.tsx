import type { Metadata } from "next";
import Link from "next/link";
import { Alert, EmptyState } from "@/components/ui/alert";
import { Card, CardHeader } from "@/components/ui/card";
import { describeApiError } from "@/lib/dashboard/public-api";
import type { ListTemplatesResponse } from "@/lib/contract/templates";
import { requireAccess } from "@/lib/dashboard/access";
import { apiFor } from "@/lib/dashboard/api-for";
import { NewTemplateForm } from "./_components/new-template-form";

export const metadata: Metadata = { title: "Templates" };
export const dynamic = "force-dynamic";

export default async function TemplatesPage({ params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const access = await requireAccess(account, "templates", { returnTo: `/a/${account}/templates` });
  let templates: ListTemplatesResponse["Templates"] | undefined;
  let error: string | undefined;
  try {
    templates = (await (await apiFor(access, "templates")).listTemplates()).Templates;
  } catch (err) {
    error = describeApiError(err);
  }
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">Templates</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Mustache templates with versions. Send one with <code>TemplateID</code> and <code>TemplateModel</code> in POST /api/v1/email; each save makes a new version, and messages keep the version they were sent with.
        </p>
      </div>
      <NewTemplateForm />
      {error && <Alert tone="error" title="The templates could not be loaded">{error}</Alert>}
      {templates && (
        <Card>
          <CardHeader title={`Templates (${templates.length})`} />
          {templates.length === 0 ? (
            <EmptyState title="No templates yet">Create one above.</EmptyState>
          ) : (
            <table className="w-full text-left text-sm" data-testid="template-list">
              <thead className="text-xs uppercase text-slate-600 dark:text-slate-400">
                <tr>
                  <th className="px-4 py-2">ID</th>
                  <th className="px-4 py-2">Name</th>
                  <th className="px-4 py-2">Version</th>
                  <th className="px-4 py-2">Subject</th>
                  <th className="px-4 py-2">Updated (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {templates.map((t) => (
                  <tr key={t.TemplateID} className="border-t border-slate-200 dark:border-slate-700">
                    <td className="px-4 py-2 font-mono">{t.TemplateID}</td>
                    <td className="px-4 py-2">
                      <Link className="font-medium underline" href={`${access.base}/templates/${t.TemplateID}`}>
                        {t.Name}
                      </Link>
                    </td>
                    <td className="px-4 py-2">{t.Version}</td>
                    <td className="max-w-md truncate px-4 py-2">{t.Subject}</td>
                    <td className="px-4 py-2">{t.UpdatedAt.replace("T", " ").slice(0, 19)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Card>
      )}
    </div>
  );
}
