import { describe, expect, it } from 'vitest';
import { html } from '../../src/web/html.js';
import { formError, formField, labelledInput, type FormField } from '../../src/web/pages/form-field.js';
import { USER_NAME_FIELD } from '../../src/web/pages/sign-in-form.js';

/** The markup on one line, whatever the template's line breaks. */
const flat = (markup: { value: string } | '') => (markup === '' ? '' : markup.value.replace(/\s+/g, ' ').trim());

/** The sign-in form's user name: every attribute kind but a hint and a value. */
const NAME: FormField = USER_NAME_FIELD;

describe('a form field', () => {
  it('labels its input and stacks them in a .field block, with only the attributes given', () => {
    expect(flat(formField(NAME))).toBe(
      '<div class="field"><label for="name">User name</label> <input id="name" name="name" type="text" autocomplete="username"' +
        ' autocapitalize="none" spellcheck="false" required maxlength="128" /> </div>',
    );
    expect(flat(formField({ id: 'secret', name: 'secret', label: 'Secret', type: 'password', required: false }))).toBe(
      '<div class="field"><label for="secret">Secret</label> <input id="secret" name="secret" type="password" /> </div>',
    );
  });

  it('says its note after the label and ties its hint to the input', () => {
    const out = flat(
      formField({ id: 'add-secret', name: 'secret', label: 'Secret', note: '(optional)', hint: 'Empty: one is made.' }),
    );
    expect(out).toContain('<label for="add-secret">Secret <span class="muted">(optional)</span></label>');
    expect(out).toContain('aria-describedby="add-secret-hint"');
    expect(out).toContain('<span id="add-secret-hint" class="hint">Empty: one is made.</span>');
    expect(out).not.toContain('aria-invalid');
  });

  it('after a refusal is marked invalid and described by its hint and then the error, in one attribute', () => {
    const out = flat(formField({ ...NAME, hint: 'Letters and digits.', errorId: 'invitation-error', autofocus: true }));
    expect(out).toMatch(/ aria-invalid="true" aria-describedby="name-hint invitation-error" autofocus \/>/);
    expect(out.match(/aria-describedby=/g)).toHaveLength(1);
    expect(flat(formField({ ...NAME, errorId: 'signin-error' }))).toMatch(
      / aria-invalid="true" aria-describedby="signin-error" \/>/,
    );
  });

  it('escapes what the form held, and keeps a hint given as markup', () => {
    const out = flat(formField({ id: 'v', name: 'v', label: 'Range', value: '"><script>', hint: html`<code>&lt;1.2.3</code>` }));
    expect(out).toContain('value="&quot;&gt;&lt;script&gt;"');
    expect(out).toContain('<span id="v-hint" class="hint"><code>&lt;1.2.3</code></span>');
    // an empty value is sent as such (the form shows it empty), an absent one not at all
    expect(flat(formField({ ...NAME, value: '' }))).toContain('value=""');
    expect(flat(formField(NAME))).not.toContain('value=');
  });

  it('can leave out the .field block for forms that flow their fields', () => {
    const out = flat(
      labelledInput({ id: 'code', name: 'code', label: 'Code', inputmode: 'numeric', minlength: 6, maxlength: 6 }),
    );
    expect(out).toBe(
      '<label for="code">Code</label> <input id="code" name="code" type="text" inputmode="numeric" minlength="6" maxlength="6" />',
    );
  });
});

describe("a refused form's error", () => {
  it('is an alert with the id its fields name, escaped; nothing when the form was not refused', () => {
    expect(flat(formError('publish-error', 'A <range> is needed'))).toBe(
      '<div id="publish-error" class="error" role="alert">A &lt;range&gt; is needed</div>',
    );
    expect(formError('publish-error', undefined)).toBe('');
    expect(formError('publish-error', '')).toBe('');
  });
});
