import type { ReactNode } from "react";

/** The centred card of the signed-out pages (sign-in, an invitation): the brand, the page's title, its content. */
export function AuthPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-6 text-center">
          <p className="text-2xl font-bold tracking-tight">
            <span aria-hidden>✉ </span>Mailroom
          </p>
          <h1 className="mt-1 text-sm text-slate-600 dark:text-slate-400">{title}</h1>
        </div>
        {children}
      </div>
    </main>
  );
}
