/** The forms of signing in, invitations and the profile (decisions §5, §9, §10), each declared once (layout/forms.ts). */
import { Schema } from "effect"
import { Text, Trimmed } from "../layout/forms.js"

/** Where to go after signing in: a path on this server, or "" (anything else is dropped, never followed). */
export const nextOf = (v: string | null): string => (v !== null && /^\/(?![/\\])[A-Za-z0-9/_\-.]{0,200}$/.test(v) ? v : "")

/** A `next` field: `nextOf` of what was sent. */
export const Next = Schema.transform(Text, Schema.String, { strict: true, decode: nextOf, encode: (s) => s })

/** **Accept invitation**, with the name a new person gives. */
export const AcceptInvitationForm = Schema.Struct({ name: Text })

/** **Send me a sign-in code**. */
export const SignInForm = Schema.Struct({ email: Trimmed, next: Next })

/** **Sign in** with the code the mail brought. */
export const CodeForm = Schema.Struct({ email: Trimmed, code: Text, next: Next })

/** **Sign out** (to accept an invitation as someone else, `next` brings the person back to it). */
export const SignOutForm = Schema.Struct({ next: Next })

/** **Save** on the profile: the core says what is wrong with each field. */
export const ProfileForm = Schema.Struct({ name: Text, time_zone: Trimmed, locale: Text, catch_up: Text })

/** An invitation's token as a link carries it, or undefined. */
const tokenOf = (v: string): string | undefined => (/^[A-Za-z0-9_-]{16,64}$/.test(v) ? v : undefined)

/** The identity provider's button: where to go afterwards, and the invitation being accepted with it. */
export const ProviderSignInForm = Schema.Struct({
  next: Next,
  invitation: Schema.transform(Text, Schema.UndefinedOr(Schema.String), { strict: true, decode: tokenOf, encode: (t) => t ?? "" })
})

/** **Delete my account**, confirmed by typing one's e-mail address. */
export const DeleteAccountForm = Schema.Struct({ email: Trimmed })

/** **Change e-mail address**: "New e-mail address". */
export const EmailChangeForm = Schema.Struct({ email: Trimmed })
