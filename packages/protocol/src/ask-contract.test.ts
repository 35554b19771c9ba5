import { describe, expect, it } from "vitest";
import { allowsFreeFormAnswer, assertAskAnswerable, duplicateOptionValue, isEditedAnswer } from "./ask-contract";
import { inputSchemaProblem, typeAdmitsObject } from "./input-schema";
import { HubError } from "./errors";
import { parseMessage, type Message } from "./message";

const OPTIONS = [
  { value: "ship", label: "Ship" },
  { value: "hold", label: "Hold" },
];
const ask = (request: Record<string, unknown>, version = "0.6") => ({
  ma2h_version: version,
  type: "ask",
  created_at: "2026-12-03T10:00:00Z",
  agent: { id: "deploybot/dev-team", run_id: "run_1", runtime: "cli" },
  title: "Ship or hold?",
  idempotency_key: "k",
  request,
});
const parsed = (request: Record<string, unknown>, version?: string) =>
  parseMessage(ask(request, version)) as Extract<Message, { type: "ask" }>;

function refusal(body: unknown): string | null {
  try {
    assertAskAnswerable(body);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(HubError);
    expect((err as HubError).status).toBe(422);
    return (err as HubError).message;
  }
}

describe("typeAdmitsObject (§5.2)", () => {
  it.each([
    ["object", true],
    [["object", "null"], true],
    [["null", "object"], true],
    [["object"], true],
    ["string", false],
    [["string", "number"], false],
    [["object", "object"], false],
    [["object", 42], false],
    [["object", "thing"], false],
    [[], false],
    [5, false],
    [null, false],
  ])("%j → %s", (type, admits) => {
    expect(typeAdmitsObject(type)).toBe(admits);
  });
});

describe("inputSchemaProblem and duplicateOptionValue", () => {
  it("names the type or the properties", () => {
    expect(inputSchemaProblem({ type: "string" })?.at).toBe("type");
    expect(inputSchemaProblem({ type: "object" })?.at).toBe("properties");
    expect(inputSchemaProblem({ properties: [] })?.at).toBe("properties");
    expect(inputSchemaProblem({ properties: { a: {} } })).toBeNull();
  });

  it("finds the first repeated value and where it first appeared", () => {
    expect(duplicateOptionValue([{ value: "a" }, { value: "b" }, { value: "a" }])).toEqual({ index: 2, first: 0 });
    expect(
      duplicateOptionValue([
        { value: "a", label: "X" },
        { value: "b", label: "X" },
      ]),
    ).toBeNull();
    expect(duplicateOptionValue("nope")).toBeNull();
    expect(duplicateOptionValue([null, 5, { value: 1 }, { value: 1 }])).toBeNull(); // shapes are the schema's job
  });
});

describe("assertAskAnswerable: the corrections at every minor, before the parse", () => {
  it.each(["0.2", "0.3", "0.4", "0.5", "0.6"])("refuses duplicate values and scalar schemas at %s", (version) => {
    expect(
      refusal(
        ask(
          {
            mode: "select",
            options: [
              { value: "a", label: "A" },
              { value: "a", label: "B" },
            ],
          },
          version,
        ),
      ),
    ).toMatch(/^request\.options\[1\]\.value/);
    expect(
      refusal(
        ask(
          {
            mode: "confirm",
            options: [
              { value: "a", label: "A" },
              { value: "a", label: "A" },
            ],
          },
          version,
        ),
      ),
    ).toMatch(/^request\.options/);
    expect(refusal(ask({ mode: "input", schema: { type: "string" } }, version))).toMatch(/^request\.schema\.type/);
    expect(refusal(ask({ mode: "input", schema: { type: "object" } }, version))).toMatch(
      /^request\.schema\.properties/,
    );
  });

  it("leaves everything else to the schema parse", () => {
    expect(refusal(ask({ mode: "select", options: OPTIONS, schema: { type: "string" } }))).toBeNull(); // stray schema
    expect(
      refusal(
        ask({
          mode: "input",
          options: [
            { value: "a", label: "A" },
            { value: "a", label: "A" },
          ],
          schema: { properties: { a: {} } },
        }),
      ),
    ).toBeNull();
    expect(refusal(ask({ mode: "input", schema: "not an object" }))).toBeNull();
    expect(refusal({ ...ask({ mode: "select", options: [{ value: "a" }, { value: "a" }] }), type: "task" })).toBeNull();
    expect(refusal(null)).toBeNull();
  });
});

describe("allowsFreeFormAnswer: allow_edit is v0.6 vocabulary (§5.2)", () => {
  it("only on a select/confirm declaring minor ≥ 6 with allow_edit: true", () => {
    expect(allowsFreeFormAnswer(parsed({ mode: "select", options: OPTIONS, permissions: { allow_edit: true } }))).toBe(
      true,
    );
    expect(allowsFreeFormAnswer(parsed({ mode: "confirm", permissions: { allow_edit: true } }, "0.7"))).toBe(true);
    expect(
      allowsFreeFormAnswer(parsed({ mode: "select", options: OPTIONS, permissions: { allow_edit: true } }, "0.5")),
    ).toBe(false);
    expect(allowsFreeFormAnswer(parsed({ mode: "select", options: OPTIONS, permissions: { allow_edit: false } }))).toBe(
      false,
    );
    expect(allowsFreeFormAnswer(parsed({ mode: "select", options: OPTIONS }))).toBe(false);
    expect(
      allowsFreeFormAnswer(
        parsed({ mode: "input", schema: { properties: { a: { type: "string" } } }, permissions: { allow_edit: true } }),
      ),
    ).toBe(false);
  });
});

describe("isEditedAnswer: set membership (§6)", () => {
  it("is true only for a string outside the effective options", () => {
    const select = parsed({ mode: "select", options: OPTIONS, permissions: { allow_edit: true } }).request;
    expect(isEditedAnswer(select, "hold")).toBe(false);
    expect(isEditedAnswer(select, "hold, until Friday")).toBe(true);
    const confirm = parsed({ mode: "confirm" }).request;
    expect(isEditedAnswer(confirm, "approve")).toBe(false); // the synthesized options count
    expect(isEditedAnswer(confirm, "maybe")).toBe(true);
    const input = parsed({ mode: "input", schema: { properties: { a: { type: "string" } } } }).request;
    expect(isEditedAnswer(input, { a: "x" })).toBe(false);
  });
});
