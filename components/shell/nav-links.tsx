"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "@/components/ui/cn";

export interface NavLink {
  href: string;
  label: string;
  /** Active only on this very path (the account's overview, whose path prefixes every other). */
  exact?: boolean;
}

function isActive(pathname: string, link: NavLink): boolean {
  return link.exact ? pathname === link.href : pathname === link.href || pathname.startsWith(`${link.href}/`);
}

export function NavLinks({ links }: { links: NavLink[] }) {
  const pathname = usePathname();
  return (
    <ul className="flex gap-1 overflow-x-auto">
      {links.map((link) => {
        const active = isActive(pathname, link);
        return (
          <li key={link.href}>
            <Link
              href={link.href}
              aria-current={active ? "page" : undefined}
              className={cn(
                "block whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium",
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
  );
}
