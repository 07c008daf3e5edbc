"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useId } from "react";
import { cn } from "@/components/ui/cn";

export interface NavLink {
  href: string;
  label: string;
  /** Active only on this very path (the account's overview, whose path prefixes every other). */
  exact?: boolean;
}

export interface NavLinkGroup {
  /** The heading shown above the group's links (it names their list). */
  group: string;
  items: NavLink[];
}

function isActive(pathname: string, link: NavLink): boolean {
  return link.exact ? pathname === link.href : pathname === link.href || pathname.startsWith(`${link.href}/`);
}

/**
 * The navigation's links under their group headings, one per line (a
 * vertical list has room for as many areas as come), the current page's
 * link marked aria-current="page".
 */
export function NavLinks({ groups }: { groups: NavLinkGroup[] }) {
  const pathname = usePathname();
  const id = useId();
  return (
    <div className="flex flex-col gap-4">
      {groups.map(({ group, items }, g) => (
        <div key={group}>
          <p id={`${id}-${g}`} className="px-3 pb-1 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">
            {group}
          </p>
          <ul aria-labelledby={`${id}-${g}`} className="flex flex-col gap-0.5">
            {items.map((link) => {
              const active = isActive(pathname, link);
              return (
                <li key={link.href}>
                  <Link
                    href={link.href}
                    aria-current={active ? "page" : undefined}
                    className={cn(
                      "block rounded-md px-3 py-1.5 text-sm font-medium",
                      active
                        ? "bg-brand-50 text-brand-700 dark:bg-slate-800 dark:text-white"
                        : "text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800",
                    )}
                  >
                    {link.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </div>
  );
}
