/**
 * What the compiler and sluice-ratelimit must agree on beyond
 * sluice/ratelimit/v1/ratelimit.proto's fields: one definition, so the two
 * can never drift apart.
 */

/**
 * First entry of a descriptor built from Gloo's `setActions`: tells the server
 * to match the rest as an unordered set against the set descriptors. Gloo's
 * value, so a descriptor list reads the same in Sluice and in Gloo.
 */
export const SET_DESCRIPTOR_MARKER = { key: 'generic_key', value: 'solo.setDescriptor.uniqueValue' } as const;
