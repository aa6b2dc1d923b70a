package io.kcdelta.quickstart;
class Placeholder {}
