/* global document, navigator, window, setTimeout */
// Copy buttons of the install box. Progressive enhancement: the page is complete without this
// file; the buttons stay hidden until it runs.
(function () {
  'use strict';
  var status = document.getElementById('copy-status');

  function announce(text) {
    if (status) status.textContent = text;
  }

  function selectText(node) {
    var range = document.createRange();
    range.selectNodeContents(node);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function fallbackCopy(node) {
    selectText(node);
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }

  function copy(button) {
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source) return;
    var text = source.textContent;
    var label = button.getAttribute('data-label') || 'text';
    var done = function (ok) {
      // Only the visible word changes; the hidden rest of the name says what is copied.
      var word = button.querySelector('.copy-text') || button;
      if (ok) {
        word.textContent = 'Copied';
        announce('Copied the ' + label + ' to the clipboard.');
        setTimeout(function () {
          word.textContent = 'Copy';
        }, 2000);
      } else {
        selectText(source);
        announce('Press Ctrl+C (or Cmd+C) to copy the selected ' + label + '.');
      }
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(
        function () {
          done(true);
        },
        function () {
          done(fallbackCopy(source));
        },
      );
    } else {
      done(fallbackCopy(source));
    }
  }

  var buttons = document.querySelectorAll('button[data-copy]');
  for (var i = 0; i < buttons.length; i++) {
    var button = buttons[i];
    button.hidden = false;
    button.addEventListener('click', copy.bind(null, button));
  }
})();
