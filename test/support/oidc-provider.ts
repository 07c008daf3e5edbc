import { generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A tiny OpenID Connect provider on loopback HTTP, for tests of the real
 * Auth.js OIDC path: discovery, JWKS, an authorization endpoint that signs
 * in whoever `identity` says at once (redirecting back with a code), and a
 * token endpoint that answers an RS256 ID token signed with node:crypto.
 * The claims are the test's to choose: an unverified email, a strange one.
 */

export interface TestOidcProvider {
  issuer: string;
  /** The claims of the next sign-in (besides iss, sub, aud, iat, exp, nonce). */
  identity: Record<string, unknown>;
  /** Authorization requests seen (their query parameters). */
  authorizations: URLSearchParams[];
  close(): Promise<void>;
}

function b64url(data: Buffer | string): string {
  return Buffer.from(data).toString("base64url");
}

function signJwt(payload: Record<string, unknown>, key: KeyObject, kid: string): string {
  const head = b64url(JSON.stringify({ alg: "RS256", typ: "JWT", kid }));
  const body = b64url(JSON.stringify(payload));
  const signature = sign("sha256", Buffer.from(`${head}.${body}`), key);
  return `${head}.${body}.${b64url(signature)}`;
}

export async function startTestOidcProvider(clientId: string): Promise<TestOidcProvider> {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = randomBytes(8).toString("hex");
  const codes = new Map<string, { claims: Record<string, unknown>; nonce?: string }>();
  const provider: TestOidcProvider = { issuer: "", identity: {}, authorizations: [], close: async () => {} };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", provider.issuer);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/.well-known/openid-configuration") {
      return json(200, {
        issuer: provider.issuer,
        authorization_endpoint: `${provider.issuer}/authorize`,
        token_endpoint: `${provider.issuer}/token`,
        userinfo_endpoint: `${provider.issuer}/userinfo`,
        jwks_uri: `${provider.issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (url.pathname === "/jwks") {
      return json(200, { keys: [{ ...publicKey.export({ format: "jwk" }), kid, alg: "RS256", use: "sig" }] });
    }
    if (url.pathname === "/authorize") {
      provider.authorizations.push(url.searchParams);
      const code = randomBytes(16).toString("hex");
      codes.set(code, { claims: { ...provider.identity }, nonce: url.searchParams.get("nonce") ?? undefined });
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      const state = url.searchParams.get("state");
      if (state) back.searchParams.set("state", state);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        if (body.length < 64 * 1024) body += chunk;
      });
      req.on("end", () => {
        const code = new URLSearchParams(body).get("code") ?? "";
        const grant = codes.get(code);
        codes.delete(code);
        if (!grant) return json(400, { error: "invalid_grant" });
        const now = Math.floor(Date.now() / 1000);
        const idToken = signJwt(
          { sub: String(grant.claims.email ?? "someone"), ...grant.claims, iss: provider.issuer, aud: clientId, iat: now, exp: now + 300, ...(grant.nonce && { nonce: grant.nonce }) },
          privateKey,
          kid,
        );
        json(200, { access_token: randomBytes(16).toString("hex"), token_type: "Bearer", expires_in: 300, id_token: idToken });
      });
      return;
    }
    json(404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  provider.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provider.close = () => new Promise((resolve) => server.close(() => resolve()));
  return provider;
}
