/** The contract's storable-text rule (lib/contract/text.ts), where lib/domain has always found it. */
export { isStorableText } from "../contract/text";
