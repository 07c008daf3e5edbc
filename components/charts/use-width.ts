"use client";

import { useCallback, useState } from "react";

/**
 * The width of an element in whole px, 0 until it is measured in the
 * browser (so the server and the first client render agree), then kept
 * current by a ResizeObserver. The ref is a callback: it observes the
 * element when it mounts and stops when it unmounts.
 */
export function useWidth<E extends HTMLElement>(): [(el: E | null) => void, number] {
  const [width, setWidth] = useState(0);
  const ref = useCallback((el: E | null) => {
    if (!el) return;
    const measure = () => setWidth(Math.floor(el.getBoundingClientRect().width));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}
