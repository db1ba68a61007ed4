import { z } from 'zod';
import { CITY_MAX, COUNTRIES, NAME_MAX, US_STATES } from '../accounts.ts';
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
    /** The signup's own, unticked "Send me news" box (issue 37, decision 074): apart from the terms. */
    marketingConsent: optionalNullable(z.boolean()),
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

/** A password as typed: the length rules of the auth service (8 to 128). */
const currentPassword = z.string().min(1, 'Please enter your current password.').max(128, 'That password is not right.');
const newPassword = z.string().min(8, 'Password is too short: use at least 8 characters.').max(128, 'Password is too long: use at most 128 characters.');

/**
 * The profile fields a shopper may change (decision 032): the name (not an Artist's, spec
 * section 5), city, country and US state. Username, account type and email are not here.
 */
export const profileUpdateInput = z
  .object({
    name: z
      .string()
      .trim()
      .max(NAME_MAX, 'Name and username must be less than 30 characters.')
      .regex(/^[\p{L}\p{N} ]*$/u, 'Your name may contain letters, digits and spaces only.')
      .refine((value) => /[\p{L}\p{N}]/u.test(value), 'Please enter your name.')
      .optional(),
    city: z
      .string()
      .trim()
      .refine((value) => [...value].length <= CITY_MAX, `Your city must be at most ${CITY_MAX} characters.`)
      .refine((value) => !/[<>\p{Cc}]/u.test(value), 'Your city may not contain < > or control characters.')
      .optional(),
    country: z.enum(COUNTRIES, 'Please choose a country from the list.').nullable().optional(),
    state: z.enum(US_STATES, 'Please choose a US state from the list.').nullable().optional(),
  })
  .strict();

/** What a deleted account gives up, shown before the shopper confirms (decision 032). */
export const deletionSummaryOutput = z.object({
  walletCents: z.number(),
  heldCents: z.number(),
  orders: z.number(),
  openOrders: z.number(),
  pendingPayment: z.boolean(),
  isAdmin: z.boolean(),
});

export const accountsContracts = {
  /** Change password: the current one is required; every other session of the caller ends. */
  changePassword: defineContract({
    access: 'signed-in',
    input: z.object({ currentPassword, newPassword }).strict(),
    output: z.object({ ok: z.literal(true), otherSessionsEnded: z.number() }),
  }),
  /** Sends a link to the new address; the email changes only when it is followed. */
  requestEmailChange: defineContract({
    access: 'signed-in',
    input: z.object({ newEmail: z.string().trim().toLowerCase().max(254, 'Invalid email format.'), password: currentPassword }).strict(),
    output: z.object({ ok: z.literal(true), sentTo: z.string() }),
  }),
  /** The link of the change-email mail: public (it may be opened in another browser), single use. */
  confirmEmailChange: defineContract({
    access: 'public',
    input: z.object({ token: z.string().regex(/^[A-Za-z0-9_-]{20,128}$/, 'This link is not valid. Please ask for a new one from your account page.') }).strict(),
    output: z.object({ ok: z.literal(true), email: z.string() }),
  }),
  updateProfile: defineContract({ access: 'signed-in', input: profileUpdateInput, output: okOutput }),
  /** What deleting the account would give up: wallet credit, orders kept. */
  getDeletionSummary: defineContract({ access: 'signed-in', input: noInput, output: deletionSummaryOutput }),
  /** Deletes the account: password required, signs out everywhere; orders stay for the label. */
  deleteAccount: defineContract({
    access: 'signed-in',
    input: z.object({ password: currentPassword, confirm: z.literal('DELETE', 'Please type DELETE to confirm.') }).strict(),
    output: okOutput,
  }),
  /** Everything the shop keeps about the caller, as one JSON document. */
  exportMyData: defineContract({
    access: 'signed-in',
    input: noInput,
    output: z.object({
      exportedAt: z.string(),
      profile: z.record(z.string(), z.unknown()),
      orders: z.array(z.record(z.string(), z.unknown())),
      walletLedger: z.array(z.record(z.string(), z.unknown())),
      wallet: z.object({ balanceCents: z.number(), heldCents: z.number() }),
      savedAddresses: z.array(z.record(z.string(), z.unknown())),
      /** The label and roster artists the fan follows (issue 37, decision 074): 'label' or 'artist:<slug>', how and when. */
      follows: z.array(z.object({ target: z.string(), source: z.string(), createdAt: z.string() })),
      /** The address's marketing consent (decision 074): status, how, which page, when given or withdrawn. */
      marketingConsent: z.array(z.record(z.string(), z.unknown())),
      /** The wishlist (decision 076): each product, when added and when the fan was told it is back. */
      wishlist: z.array(z.object({ productId: z.string(), name: z.string(), addedAt: z.string(), toldAt: z.string().nullable() })),
      /** Notify me and waitlists (decision 076): each item asked about, by the account or its address, its status and times. */
      notifyMe: z.array(z.record(z.string(), z.unknown())),
    }),
  }),

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
    input: z.object({ deviceToken: z.string().max(DEVICE_TOKEN_MAX).refine(isValidDeviceToken, 'must be a device token (letters, digits and _ . : - only)') }).strict(),
    output: okOutput,
  }),
};
