/**
 * Page forms (decisions §9), each declared once as a Schema of its fields, as the API's payloads are: a route
 * gets the decoded form, or the refusal to show beside the fields (422) with what the person typed kept. A
 * field's message is a catalog key (`error.blank`), said in the reader's language; a message that is not one
 * (the core's) is shown as it is.
 */
import type * as UrlParams from "@effect/platform/UrlParams"
import { Messages } from "@convene/core"
import { Either, ParseResult, Schema, type SchemaAST } from "effect"
import type { MessageKey, Translate } from "./i18n.js"

/** Every value posted under one name: a form sends a name once, or once for each checked box. */
const Posted = Schema.Array(Schema.String)

/** A text field as typed ("" when the form did not send it). */
export const Text = Schema.transform(Posted, Schema.String, { strict: true, decode: (values) => values[0] ?? "", encode: (s) => [s] })

/** A text field without the spaces around it. */
export const Trimmed = Schema.compose(Text, Schema.Trim)

/** A text field that must hold more than spaces. */
export const Required = Trimmed.pipe(Schema.filter((s) => s !== "", { message: () => "error.blank" satisfies MessageKey }))

/** A text field that must hold more than spaces, kept as typed (a comment's or an outcome's body). */
export const Filled = Text.pipe(Schema.filter((s) => s.trim() !== "", { message: () => "error.blank" satisfies MessageKey }))

/** A checkbox: sent with its value "1", or not sent. */
export const Checkbox = Schema.transform(Text, Schema.Boolean, { strict: true, decode: (s) => s === "1", encode: (on) => (on ? "1" : "") })

/** A repeated field: every value sent under its name (a checkbox per option). */
export const Many = Posted

/** One of `values`, as a select or radio buttons send it. */
export const OneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Text.pipe(Schema.filter((s): s is L[number] => values.includes(s), { message: () => "error.choice" satisfies MessageKey }))

/** A number field that may be left empty: undefined, or a whole number from 0 to 9,999. */
export const OptionalCount = Schema.transformOrFail(Trimmed, Schema.UndefinedOr(Schema.Int), {
  strict: true,
  decode: (s, _, ast) =>
    s === "" ? ParseResult.succeed(undefined)
    : /^[0-9]{1,4}$/.test(s) ? ParseResult.succeed(Number(s))
    : ParseResult.fail(new ParseResult.Type(ast, s, "error.wholeNumber" satisfies MessageKey)),
  encode: (n) => ParseResult.succeed(n === undefined ? "" : String(n))
})

/** A form that sends nothing but its CSRF token (a button). */
export const NoFields = Schema.Struct({})

/** The fields as they were typed (each one's first value), for a form shown again. */
export type FormInput = Readonly<Record<string, string>>

/** A refused form: a message per field, in the reader's words, and the fields as they were typed. */
export interface FormRefusal {
  readonly errors: Record<string, string>
  readonly input: FormInput
}

/** A decoded form, and the fields as they were typed (shown again when the core refuses what they say). */
export interface Submitted<A> {
  readonly form: A
  readonly input: FormInput
}

const isMessageKey = (s: string): s is MessageKey => Object.hasOwn(Messages.CATALOGS.en, s)

/** The names a form declares (through the transformations and filters around its Struct). */
const declaredNames = (ast: SchemaAST.AST): ReadonlyArray<string> => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast.propertySignatures.map((p) => String(p.name))
    case "Transformation":
    case "Refinement":
      return declaredNames(ast.from)
    default:
      return []
  }
}

/**
 * The decoder of a form: the posted fields grouped by name (a null-prototype record: a field named
 * `__proto__` is a field), fields the form does not declare ignored (the CSRF token, a button's name).
 */
export const formDecoder = <A, I>(form: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(form, { errors: "all", onExcessProperty: "ignore" })
  // a field the browser did not send (an empty multiple select, no box checked) is sent as nothing
  const names = declaredNames(form.ast)
  return (params: UrlParams.UrlParams, t: Translate): Either.Either<Submitted<A>, FormRefusal> => {
    const posted: Record<string, Array<string>> = Object.create(null)
    for (const name of names) posted[name] = []
    for (const [name, value] of params) (posted[name] ??= []).push(value)
    const input: Record<string, string> = {}
    for (const name of Object.keys(posted)) input[name] = posted[name]![0] ?? ""
    return Either.mapBoth(decode(posted), { onRight: (form) => ({ form, input }), onLeft: (error) => {
      const errors: Record<string, string> = {}
      for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
        const name = String(issue.path[0] ?? "form")
        const text = isMessageKey(issue.message) ? t(issue.message) : issue.message
        errors[name] = errors[name] === undefined ? text : `${errors[name]}; ${text}`
      }
      return { errors, input }
    } })
  }
}
