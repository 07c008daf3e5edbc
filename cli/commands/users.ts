import type { Command } from "commander";
import { generatePassword } from "../../lib/domain/bootstrap";
import {
  addStaffUser,
  changeStaffRole,
  listStaffUsers,
  removeStaffUser,
  setStaffPassword,
  type StaffUser,
} from "../../lib/domain/staff-users";
import { emit, formatTime, table } from "../output";
import { withJson, type CliApp, type JsonOptions } from "../runner";

function userJson(u: StaffUser) {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    createdAt: u.createdAt.toISOString(),
    lastLoginAt: u.lastLoginAt?.toISOString() ?? null,
    mustChangePassword: u.mustChangePassword,
  };
}

export function registerUsers(program: Command, app: CliApp): void {
  const users = program.command("users").description("dashboard staff users: add, list, remove, set-role, set-password");

  withJson(users.command("add"))
    .description("add a staff user (roles: admin, support, marketing)")
    .requiredOption("--email <email>", "sign-in email")
    .requiredOption("--role <role>", "admin, support or marketing")
    .option("--password <password>", "at least 8 characters (default: a random one, printed once)")
    .option("--name <name>", "display name")
    .action((opts: JsonOptions & { email: string; role: string; password?: string; name?: string }) =>
      app.run(async ({ db }) => {
        const generated = opts.password === undefined ? generatePassword() : undefined;
        // A generated password is asked to be changed at the first sign-in (ADR 0505).
        const user = await addStaffUser(db, {
          email: opts.email,
          role: opts.role,
          password: opts.password ?? generated!,
          name: opts.name,
          mustChangePassword: Boolean(generated),
        });
        emit(opts, { ...userJson(user), ...(generated && { password: generated }) }, () => [
          `Added ${user.role} ${user.email}`,
          ...(generated ? [`  password (shown once): ${generated}`, "  the dashboard asks to change it at the first sign-in"] : []),
        ]);
      }),
    );

  withJson(users.command("list"))
    .description("list staff users")
    .action((opts: JsonOptions) =>
      app.run(async ({ db }) => {
        const rows = await listStaffUsers(db);
        emit(opts, rows.map(userJson), () =>
          table(
            ["EMAIL", "ROLE", "NAME", "CREATED", "LAST SIGN-IN"],
            rows.map((u) => [u.email, u.role, u.name || "-", formatTime(u.createdAt), formatTime(u.lastLoginAt)]),
            "No staff users: add one with `mailroom users add --email EMAIL --role admin`",
          ),
        );
      }),
    );

  withJson(users.command("remove"))
    .description("remove a staff user (never the last admin)")
    .argument("<email>", "the user's email")
    .action((email: string, opts: JsonOptions) =>
      app.run(async ({ db }) => {
        const user = await removeStaffUser(db, email);
        emit(opts, { ...userJson(user), removed: true }, () => `Removed ${user.email}`);
      }),
    );

  withJson(users.command("set-role"))
    .description("change a staff user's role (never demotes the last admin)")
    .argument("<email>", "the user's email")
    .argument("<role>", "admin, support or marketing")
    .action((email: string, role: string, opts: JsonOptions) =>
      app.run(async ({ db }) => {
        const user = await changeStaffRole(db, email, role);
        emit(opts, userJson(user), () => `${user.email} is now ${user.role}`);
      }),
    );

  withJson(users.command("set-password"))
    .description("set a staff user's password")
    .argument("<email>", "the user's email")
    .option("--password <password>", "at least 8 characters (default: a random one, printed once)")
    .action((email: string, opts: JsonOptions & { password?: string }) =>
      app.run(async ({ db }) => {
        const generated = opts.password === undefined ? generatePassword() : undefined;
        const user = await setStaffPassword(db, email, opts.password ?? generated!, { mustChangePassword: Boolean(generated) });
        emit(opts, { ...userJson(user), ...(generated && { password: generated }) }, () => [
          `Changed the password of ${user.email}`,
          ...(generated ? [`  password (shown once): ${generated}`, "  the dashboard asks to change it at the next sign-in"] : []),
        ]);
      }),
    );
}
