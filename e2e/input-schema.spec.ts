/**
 * An input ask written in MCP elicitation's restricted schema (§5.2; packages/protocol/src/flat-schema.ts),
 * answered on the item page: the form renders each keyword — an email and a date input, a titled
 * `oneOf` as a select of titles, a multi-select as checkboxes, the bounds as words and as the
 * inputs' own limits, the schema's `default` as the prefill — and the Hub checks the answer again:
 * a ticket that misses its `pattern` (which the browser does not check) comes back as the form's
 * error naming it, nothing resolved; the corrected answer reaches the agent typed, the list a list.
 */
import { api, envelope, expect, marker, pullTerminal, test } from "./support/fixtures";

test("an MCP-shaped input schema: rendered, refused outside its constraints, answered within them", async ({
  alice,
}) => {
  const a = api();
  const title = `Scale the fleet ${marker()}`;
  const id = await a.submit(
    envelope("ask", a.agentId, {
      title,
      request: {
        mode: "input",
        schema: {
          type: "object",
          properties: {
            contact: { type: "string", format: "email", title: "Contact" },
            start: { type: "string", format: "date", title: "Start day" },
            ticket: { type: "string", pattern: "^OPS-\\d+$", description: "The change ticket." },
            note: { type: "string", minLength: 3, maxLength: 40 },
            replicas: { type: "integer", minimum: 1, maximum: 9, default: 3 },
            size: {
              type: "string",
              title: "Size",
              oneOf: [
                { const: "s", title: "Small" },
                { const: "l", title: "Large" },
              ],
            },
            regions: {
              type: "array",
              title: "Regions",
              items: {
                anyOf: [
                  { const: "eu", title: "Europe" },
                  { const: "us", title: "United States" },
                  { const: "ap", title: "Asia Pacific" },
                ],
              },
              minItems: 1,
              maxItems: 2,
            },
          },
          required: ["contact", "ticket", "regions"],
        },
      },
    }),
  );
  const { page } = alice;
  const res = await page.goto(`/inbox/${id}`);
  expect(res?.status()).toBe(200);
  await expect(page.getByTestId("item-title")).toHaveText(title);

  // Rendered from the keywords.
  await expect(page.getByTestId("field-contact")).toHaveAttribute("type", "email");
  await expect(page.getByTestId("field-start")).toHaveAttribute("type", "date");
  await expect(page.getByTestId("field-note")).toHaveAttribute("maxlength", "40");
  await expect(page.getByTestId("field-note")).toHaveAttribute("minlength", "3");
  const replicas = page.getByTestId("field-replicas");
  await expect(replicas).toHaveValue("3"); // the schema's default
  await expect(replicas).toHaveAttribute("min", "1");
  await expect(replicas).toHaveAttribute("max", "9");
  await expect(page.getByText("From 1 to 9.")).toBeVisible();
  await expect(page.getByText("The change ticket. Must match ^OPS-\\d+$")).toBeVisible();
  await expect(page.getByTestId("field-size").locator("option")).toHaveText(["—", "Small", "Large"]);
  const regions = page.getByTestId("multi-regions");
  await expect(regions.locator("legend")).toContainText("Regions");
  await expect(regions).toContainText("Choose 1–2.");
  await expect(regions.getByRole("checkbox")).toHaveCount(3);
  await expect(regions.getByLabel("United States")).not.toBeChecked();

  await page.getByTestId("field-contact").fill("ops@example.com");
  await page.getByTestId("field-start").fill("2026-05-04");
  await page.getByTestId("field-ticket").fill("ops-12"); // misses the pattern: only the Hub checks it
  await page.getByTestId("field-size").selectOption({ label: "Large" });
  await regions.getByLabel("Europe").check();
  await regions.getByLabel("United States").check();
  await page.getByTestId("submit-answer").click();
  await expect(page.getByTestId("form-error")).toContainText('ticket: must match the pattern "^OPS-\\\\d+$"');
  await expect(page.getByTestId("outcome")).toHaveCount(0);

  await page.getByTestId("field-ticket").fill("OPS-12");
  await page.getByTestId("submit-answer").click();
  await expect(page.getByTestId("outcome")).toContainText("human:alice");

  const pulled = await pullTerminal(a, id);
  expect(pulled.status).toBe("answered");
  expect(pulled.response.response.value).toEqual({
    contact: "ops@example.com",
    start: "2026-05-04",
    ticket: "OPS-12",
    replicas: 3,
    size: "l",
    regions: ["eu", "us"],
  });
});
