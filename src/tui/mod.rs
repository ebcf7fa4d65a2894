//! The review screen: app state, actions, keymap, theme, terminal guard, views.
