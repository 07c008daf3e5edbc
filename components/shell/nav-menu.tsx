"use client";

import { usePathname } from "next/navigation";
import { type ReactNode, useId, useRef, useState } from "react";
import { cn } from "@/components/ui/cn";

/**
 * The dashboard's frame around its navigation: a left sidebar on wide
 * screens (lg and up), and below that a top bar whose "Menu" button
 * discloses the same panel (aria-expanded, aria-controls). The panel closes
 * on Escape (focus back on the button) and when the page changes: it is open
 * only for the path it was opened on.
 */
export function NavMenu({ brand, children }: { brand: ReactNode; children: ReactNode }) {
  const pathname = usePathname();
  const [openAt, setOpenAt] = useState<string | null>(null);
  const open = openAt === pathname;
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  return (
    <header
      onKeyDown={(e) => {
        if (e.key === "Escape" && open) {
          setOpenAt(null);
          button.current?.focus();
        }
      }}
      className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900 lg:sticky lg:top-0 lg:flex lg:h-screen lg:w-56 lg:shrink-0 lg:flex-col lg:border-b-0 lg:border-r"
    >
      <div className="flex items-center justify-between gap-2 px-4 py-2 lg:pt-4">
        {brand}
        <button
          ref={button}
          type="button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpenAt(open ? null : pathname)}
          className="flex items-center gap-2 rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-500 dark:border-slate-600 dark:text-slate-200 dark:hover:bg-slate-800 lg:hidden"
        >
          <span aria-hidden>{open ? "✕" : "☰"}</span>
          Menu
        </button>
      </div>
      <div id={panelId} data-testid="nav-panel" className={cn(open ? "flex" : "hidden", "min-h-0 flex-1 flex-col gap-4 overflow-y-auto px-3 pb-4 pt-2 lg:flex")}>
        {children}
      </div>
    </header>
  );
}
