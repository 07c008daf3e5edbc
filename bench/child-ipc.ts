import type { ChildProcess } from "node:child_process";

/** Sends `msg` to a bench child process and resolves with its first message of type `answer`. */
export function ask<T>(child: ChildProcess, msg: string | object, answer = typeof msg === "string" ? msg : ""): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type: string }) => {
      if (m.type !== answer) return;
      child.off("message", on);
      resolve(m as T);
    };
    child.on("message", on);
    child.send(typeof msg === "string" ? { type: msg } : msg);
  });
}
