import { generateKeyPairSync } from "node:crypto";

/**
 * A DKIM key for tests of signing: the private key (PKCS#8 PEM) that
 * signs as `mailroom._domainkey.example.com`, and a DNS resolver for
 * mailauth's dkimVerify that answers that one TXT lookup with its public key.
 */
const { privateKey, publicKey } = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const p = publicKey.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");

export const testDkimKey = { domainName: "example.com", keySelector: "mailroom", privateKey };

/** Answers the DKIM TXT lookup of mailroom._domainkey.example.com only. */
export async function testDkimResolver(name: string, type: string): Promise<string[][]> {
  if (type === "TXT" && name === "mailroom._domainkey.example.com") return [[`v=DKIM1; k=rsa; p=${p}`]];
  throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
}
