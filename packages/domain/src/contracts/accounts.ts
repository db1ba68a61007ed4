import { z } from 'zod';
import { DEVICE_TOKEN_MAX, isValidDeviceToken } from '../profile.ts';
import { defineContract, noInput, okOutput, optionalNullable } from './define.ts';

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/**
 * Signup (spec section 5) as the server checks its shape; the rules and messages are
 * domain/accounts.ts's signupProblem, whose SignupForm is this schema's type.
 */
export const signupInput = z
  .object({
    email: text(254),
    password: text(128),
    confirmPassword: text(128),
    name: text(100),
    username: text(100),
    city: optionalNullable(text(100)),
    country: optionalNullable(text(2)),
    state: optionalNullable(text(2)),
    accountType: optionalNullable(text(20)),
    acceptedTerms: z.boolean(),
  })
  .strict();

/** The signed-in user's own profile (spec section 3), as the client reads it. */
export const profileOutput = z.object({
  id: z.string(),
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  ArtistName: z.string(),
  ArtistNameLower: z.string(),
  username: z.string(),
  username_lower: z.string(),
  location: z.string(),
  country: z.string().nullable(),
  state: z.string().nullable(),
  accountType: z.string(),
  profileImageUrl: z.string().nullable(),
  profileImage: z.string().nullable(),
  lastOperationTime: z.string().nullable(),
  deviceToken: z.string().nullable(),
  credits: z.number(),
  stats: z.object({
    totalSpns: z.number(),
    sales: z.object({ singles: z.number(), albums: z.number(), videos: z.number() }),
  }),
  following: z.array(z.string()),
  followers: z.array(z.string()),
  isAdmin: z.boolean(),
  portalAccess: z.boolean(),
  albums: z.array(z.string()).optional(),
  singles: z.array(z.string()).optional(),
  videos: z.array(z.string()).optional(),
  videoalbums: z.array(z.string()).optional(),
});

/** A saved shipping address (issue 17): the fields of the checkout's shipping form. */
export const savedAddressOutput = z.object({
  id: z.string(),
  name: z.string(),
  line1: z.string(),
  line2: z.string(),
  city: z.string(),
  state: z.string(),
  postal_code: z.string(),
  country: z.string(),
  lastUsedAt: z.string(),
});

export const accountsContracts = {
  /** The caller's addresses, the last used first (the checkout's default). */
  listSavedAddresses: defineContract({ access: 'signed-in', input: noInput, output: z.object({ addresses: z.array(savedAddressOutput) }) }),
  deleteSavedAddress: defineContract({
    access: 'signed-in',
    input: z.object({ id: z.string().regex(/^[\w-]{1,64}$/, 'That address is not one of yours.') }).strict(),
    output: okOutput,
  }),
  createAccount: defineContract({
    access: 'public',
    input: signupInput,
    // The same answer whether or not the email already had an account.
    output: z.object({ ok: z.literal(true), email: z.string() }),
  }),
  getProfile: defineContract({ access: 'signed-in', input: noInput, output: profileOutput }),
  recordDeviceToken: defineContract({
    access: 'signed-in',
    input: z
      .object({ deviceToken: z.string().max(DEVICE_TOKEN_MAX).refine(isValidDeviceToken, 'must be a device token (letters, digits and _ . : - only)') })
      .strict(),
    output: okOutput,
  }),
};
