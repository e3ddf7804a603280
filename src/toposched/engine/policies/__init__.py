"""engine/policies"""
