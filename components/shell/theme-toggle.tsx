"use client";

import { useState } from "react";
import { THEME_COOKIE, THEMES, type Theme } from "./theme";

const LABELS: Record<Theme, string> = { system: "System theme", light: "Light theme", dark: "Dark theme" };
const ICONS: Record<Theme, string> = { system: "◐", light: "☀", dark: "☾" };

/** Cycles system → light → dark; remembered in a cookie the root layout reads. */
export function ThemeToggle({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState<Theme>(initial);
  const next = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!;
  return (
    <button
      type="button"
      onClick={() => {
        document.documentElement.classList.remove(...THEMES);
        document.documentElement.classList.add(next);
        document.cookie = `${THEME_COOKIE}=${next}; path=/; max-age=31536000; samesite=lax`;
        setTheme(next);
      }}
      className="rounded-md px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800"
      aria-label={`${LABELS[theme]} (switch to ${LABELS[next].toLowerCase()})`}
      title={LABELS[theme]}
    >
      <span aria-hidden>{ICONS[theme]}</span>
    </button>
  );
}
